import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  migratePostgresSpool,
  PostgresSpoolStore,
  SPOOL_CHUNK_BYTES,
  SPOOL_SCHEMA_VERSION,
} from '../../src/adapters/postgres/index.js'
import { renderError, SkillHostError } from '../../src/common/errors.js'
import {
  formatConformanceReport,
  runSpoolStoreConformance,
} from '../../src/sources/conformance/index.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

let server: SharedPostgres
let url: string
const pools: pg.Pool[] = []
const newPool = (connectionString = url, max = 8): pg.Pool => {
  const pool = new pg.Pool({ connectionString, max })
  pool.on('error', () => undefined) // idle clients of a stopped server
  pools.push(pool)
  return pool
}
let pool: pg.Pool
let otherPool: pg.Pool
let schemas = 0

beforeAll(async () => {
  server = await sharedPostgres()
  url = server.createDatabase('spool')
  pool = newPool()
  otherPool = newPool()
})
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)))
})

async function freshStore(session?: string): Promise<PostgresSpoolStore> {
  const schema = `spool_${++schemas}`
  await migratePostgresSpool(pool, schema)
  return new PostgresSpoolStore({ pool, schema, ...(session ? { session } : {}) })
}

const bytes = (n: number, salt = 0) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 7 + salt) % 251)

async function rejection(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action()
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection')
}

describe('PostgresSpoolStore', () => {
  it('passes the spool conformance kit with every check supported', async () => {
    const report = await runSpoolStoreConformance('postgres', () => freshStore(), {
      sameStorage: (store) => {
        const s = store as PostgresSpoolStore
        return new PostgresSpoolStore({ pool: otherPool, schema: s.schema })
      },
      withSession: (store, session) =>
        new PostgresSpoolStore({ pool, schema: (store as PostgresSpoolStore).schema, session }),
      withQuota: async (quota) =>
        new PostgresSpoolStore({ pool, schema: (await freshStore()).schema, quota }),
    })
    expect(report.failed, formatConformanceReport(report)).toEqual([])
    expect(report.unsupported, formatConformanceReport(report)).toEqual([])
    expect(report.passed.length).toBeGreaterThanOrEqual(22)
  })

  it('a quota holds against concurrent puts from two pools: exactly maxItems are stored', async () => {
    const { schema } = await freshStore()
    const quota = { maxItems: 3, maxBytes: 1 << 20 }
    const a = new PostgresSpoolStore({ pool, schema, session: 's', quota })
    const b = new PostgresSpoolStore({ pool: otherPool, schema, session: 's', quota })
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).put(bytes(100, i))),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as SkillHostError).code).toBe('E_SPOOL_FULL')
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM ${schema}.spool_items WHERE session = 's'`,
    )
    expect(rows[0].n).toBe(3)
  })

  it('stores content in rows of at most 256 KiB and streams it one row at a time', async () => {
    const store = await freshStore()
    const size = 16 * SPOOL_CHUNK_BYTES + 5
    const record = await store.put(bytes(size))
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, max(octet_length(data))::int AS biggest, min(seq)::int AS first, max(seq)::int AS last
       FROM ${store.schema}.spool_chunks WHERE item_id = $1`,
      [record.id],
    )
    expect(rows[0]).toEqual({ n: 17, biggest: SPOOL_CHUNK_BYTES, first: 0, last: 16 })
    const stream = await store.open(record.id, { start: SPOOL_CHUNK_BYTES - 2 })
    const pieces: number[] = []
    for await (const piece of stream as unknown as AsyncIterable<Uint8Array>)
      pieces.push(piece.byteLength)
    expect(pieces[0]).toBe(2)
    expect(Math.max(...pieces)).toBe(SPOOL_CHUNK_BYTES)
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(size - SPOOL_CHUNK_BYTES + 2)
    expect(pieces.length).toBe(17)
  })

  it('concurrent identical puts from two pools leave one row and one set of chunks', async () => {
    const a = await freshStore('s1')
    const b = new PostgresSpoolStore({ pool: otherPool, schema: a.schema, session: 's1' })
    const content = bytes(3 * SPOOL_CHUNK_BYTES)
    const records = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).put(content, { title: 'x' }, { idempotencyKey: 'call-7' }),
      ),
    )
    expect(new Set(records.map((r) => r.id)).size).toBe(1)
    const { rows } = await pool.query(
      `SELECT (SELECT count(*)::int FROM ${a.schema}.spool_items) AS items,
              (SELECT count(*)::int FROM ${a.schema}.spool_chunks) AS chunks`,
    )
    expect(rows[0]).toEqual({ items: 1, chunks: 3 })
  })

  it('a put that fails half-way stores nothing (one transaction)', async () => {
    const store = await freshStore()
    await pool.query(`ALTER TABLE ${store.schema}.spool_chunks ADD CHECK (seq < 5)`)
    const err = await rejection(() => store.put(bytes(8 * SPOOL_CHUNK_BYTES)))
    expect(SkillHostError.is(err, 'E_SPOOL_FAILED')).toBe(true)
    expect((err as SkillHostError).data).toEqual({ operation: 'put', sqlState: '23514' })
    const { rows } = await pool.query(
      `SELECT (SELECT count(*)::int FROM ${store.schema}.spool_items) AS items,
              (SELECT count(*)::int FROM ${store.schema}.spool_chunks) AS chunks`,
    )
    expect(rows[0]).toEqual({ items: 0, chunks: 0 })
    expect((await store.put(bytes(10))).size).toBe(10)
  })

  it('hostile ids never reach the database; the table survives them', async () => {
    const store = await freshStore()
    const kept = await store.put('kept')
    const dead = newPool()
    await dead.end()
    const offline = new PostgresSpoolStore({ pool: dead, schema: store.schema })
    for (const id of [
      "r_0' OR '1'='1",
      "'; DROP TABLE spool_items; --",
      '../x',
      'R_0123456789ABCDEF',
    ]) {
      // A query on the ended pool would reject: resolving proves none ran.
      expect(await offline.get(id)).toBeUndefined()
      expect(await offline.stat(id)).toBeUndefined()
      expect(await offline.open(id)).toBeUndefined()
      expect(await offline.delete(id)).toBe(false)
      expect(await store.get(id)).toBeUndefined()
    }
    expect(new TextDecoder().decode(await store.get(kept.id))).toBe('kept')
  })

  it('a database that is down or lost is E_SPOOL_FAILED, with no host detail for the model', async () => {
    const store = await freshStore()
    const record = await store.put(bytes(3 * SPOOL_CHUNK_BYTES))
    const refused = newPool(url.replace(/:\d+\//, ':1/'))
    const down = new PostgresSpoolStore({ pool: refused, schema: store.schema })
    for (const [operation, call] of [
      ['put', () => down.put('x')],
      ['get', () => down.get(record.id)],
      ['stat', () => down.stat(record.id)],
      ['open', () => down.open(record.id)],
      ['delete', () => down.delete(record.id)],
      ['prune', () => down.prune({ maxBytes: 0 })],
    ] as const) {
      const err = await rejection(call)
      expect(SkillHostError.is(err, 'E_SPOOL_FAILED'), String(err)).toBe(true)
      expect((err as SkillHostError).data.operation).toBe(operation)
      expect((err as SkillHostError).cause).toBeDefined()
      expect(renderError(err)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres/)
    }
    expect(
      SkillHostError.is(
        await rejection(() => migratePostgresSpool(refused, 'x')),
        'E_SPOOL_FAILED',
      ),
    ).toBe(true)
    // A connection lost mid-stream errors the stream.
    const own = newPool(url, 2)
    const streaming = new PostgresSpoolStore({ pool: own, schema: store.schema })
    const reader = (await streaming.open(record.id))!.getReader()
    expect((await reader.read()).value?.byteLength).toBe(SPOOL_CHUNK_BYTES)
    await own.end()
    const lost = await rejection(() => reader.read())
    expect(SkillHostError.is(lost, 'E_SPOOL_FAILED')).toBe(true)
    expect((lost as SkillHostError).data.operation).toBe('read')
  })

  it('tables never migrated are E_SPOOL_FAILED naming the SQLSTATE', async () => {
    const store = new PostgresSpoolStore({ pool, schema: 'never_migrated' })
    const err = await rejection(() => store.put('x'))
    expect(SkillHostError.is(err, 'E_SPOOL_FAILED')).toBe(true)
    expect((err as SkillHostError).data).toEqual({ operation: 'put', sqlState: '42P01' })
  })

  it('migrates once when several replicas start at once, and again is a no-op', async () => {
    const schema = 'racing'
    const replicas = Array.from({ length: 4 }, () => newPool(url, 2))
    await Promise.all(replicas.map((p) => migratePostgresSpool(p, schema)))
    await migratePostgresSpool(pool, schema)
    const { rows } = await pool.query(`SELECT version FROM ${schema}.spool_migrations`)
    expect(rows).toEqual([{ version: SPOOL_SCHEMA_VERSION }])
    const store = new PostgresSpoolStore({ pool: replicas[3]!, schema })
    expect(await store.get((await store.put('ok')).id)).toEqual(new TextEncoder().encode('ok'))
  })

  it('refuses bad schema names and session tags before any query', async () => {
    for (const schema of [
      'Skillhost',
      'a-b',
      'x"; DROP SCHEMA public; --',
      'pg_catalog',
      '',
      'a'.repeat(64),
      'public.x',
      '1abc',
    ]) {
      expect(() => new PostgresSpoolStore({ pool, schema }), schema).toThrow(TypeError)
      await expect(migratePostgresSpool(pool, schema)).rejects.toThrow(TypeError)
    }
    for (const session of ['', 'a\u0000b', 's'.repeat(257)])
      expect(() => new PostgresSpoolStore({ pool, session })).toThrow(TypeError)
    expect(() => new PostgresSpoolStore({ pool: {} as pg.Pool })).toThrow(TypeError)
    expect(new PostgresSpoolStore({ pool }).schema).toBe('skillhost')
  })
})
