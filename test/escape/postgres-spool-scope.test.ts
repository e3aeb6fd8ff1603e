// Hole 10 of issue 35: a session's PostgreSQL spool read, streamed, stat'ed
// and deleted any item by id, whatever session (or deployment, or token)
// had put it. Each attack below runs as a second session on its own pool
// (another replica) against items the first session put.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgresSpool, PostgresSpoolStore } from '../../src/adapters/postgres/index.js'
import { openServePostgres, type ServePostgres } from '../../src/cli/serve/serve-postgres.js'
import { textReaders } from '../../src/common/artifacts/text-readers.js'
import { SkillHostError } from '../../src/common/errors.js'
import { createTurnContext } from '../../src/common/turn-context.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

let server: SharedPostgres
let url: string
const pools: pg.Pool[] = []
const newPool = (): pg.Pool => {
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  pool.on('error', () => undefined)
  pools.push(pool)
  return pool
}
let replicaA: pg.Pool
let replicaB: pg.Pool
beforeAll(async () => {
  server = await sharedPostgres()
  url = server.createDatabase('scope')
  replicaA = newPool()
  replicaB = newPool()
  await migratePostgresSpool(replicaA)
})
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)))
})

const storeOf = (pool: pg.Pool, session?: string) =>
  new PostgresSpoolStore({ pool, ...(session !== undefined ? { session } : {}) })
const secret = 'quarterly numbers: 42\nsecond line\n'

async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action()
  } catch (err) {
    return SkillHostError.isInstance(err) ? err.code : String(err)
  }
  return 'no error'
}

describe("hole 10: a session's spooled results are not found from another session", () => {
  it('get, open (whole and ranged), stat and delete of another session are "not found"; the owner still reads', async () => {
    const a = storeOf(replicaA, 'session-a')
    const b = storeOf(replicaB, 'session-b')
    const record = await a.put(secret, { title: 'report' })
    expect(await b.get(record.id)).toBeUndefined()
    expect(await b.stat(record.id)).toBeUndefined()
    expect(await b.open(record.id)).toBeUndefined()
    expect(await b.open(record.id, { start: 3, end: 9 })).toBeUndefined()
    expect(await b.delete(record.id)).toBe(false)
    // Nothing B did touched it: A (on the other replica too) still has it whole.
    expect(Buffer.from((await a.get(record.id)) as Uint8Array).toString()).toBe(secret)
    expect(
      Buffer.from((await storeOf(replicaB, 'session-a').get(record.id)) as Uint8Array).toString(),
    ).toBe(secret)
    expect((await a.stat(record.id))?.id).toBe(record.id)
  })

  it('every reader tool of another session answers E_ARTIFACT_NOT_FOUND', async () => {
    const a = storeOf(replicaA, 'reader-a')
    const record = await a.put(secret, { title: 'report' })
    const ctx = createTurnContext({ spool: storeOf(replicaB, 'reader-b') })
    const own = createTurnContext({ spool: storeOf(replicaB, 'reader-a') })
    const readers = textReaders()
    expect(readers.map((t) => t.name)).toHaveLength(5)
    for (const reader of readers) {
      const args =
        reader.name === 'artifact_grep' ? { id: record.id, pattern: '42' } : { id: record.id }
      expect(await codeOf(() => reader.execute(args, ctx)), reader.name).toBe(
        'E_ARTIFACT_NOT_FOUND',
      )
      // The session that put it reads it on the other replica.
      expect(await codeOf(() => reader.execute(args, own)), reader.name).toBe('no error')
    }
  })

  it("two deployments on one database (serve's spoolFor, other tokens' sessions): no crossing", async () => {
    const lines: string[] = []
    const tenantA: ServePostgres = await openServePostgres(url, (l) => lines.push(l))
    const tenantB: ServePostgres = await openServePostgres(url, (l) => lines.push(l))
    try {
      const record = await tenantA.spoolFor('tenant-a-session').put(secret)
      const b = tenantB.spoolFor('tenant-b-session')
      expect(await b.get(record.id)).toBeUndefined()
      expect(await b.stat(record.id)).toBeUndefined()
      expect(await b.delete(record.id)).toBe(false)
      expect(await tenantA.spoolFor('tenant-a-session').get(record.id)).toBeDefined()
    } finally {
      await tenantA.dispose()
      await tenantB.dispose()
    }
  })

  it('ways around: a reused idempotency key, SQL-ish and wildcard session names, a prefix', async () => {
    const a = storeOf(replicaA, 'ab')
    const record = await a.put(secret, {}, { idempotencyKey: 'call-1' })
    // The same key in another session is another item, never the first one's record.
    const b = storeOf(replicaB, 'other')
    const theirs = await b.put('mine', {}, { idempotencyKey: 'call-1' })
    expect(theirs.id).not.toBe(record.id)
    expect(Buffer.from((await b.get(theirs.id)) as Uint8Array).toString()).toBe('mine')
    const tries = ['a', 'ab ', "' OR '1'='1", '%', 'AB', "ab' --"]
    for (const session of tries) {
      const s = storeOf(replicaB, session)
      expect(await s.get(record.id), session).toBeUndefined()
      expect(await s.stat(record.id), session).toBeUndefined()
      expect(await s.delete(record.id), session).toBe(false)
    }
    expect(tries).toHaveLength(6)
    expect(await a.get(record.id)).toBeDefined()
  })

  it('the legitimate stay: the host (no session) sees every item and prunes by session', async () => {
    const a = storeOf(replicaA, 'host-a')
    const record = await a.put(secret)
    const host = storeOf(replicaB)
    expect(await host.stat(record.id)).toBeDefined()
    expect((await host.prune({ session: 'host-a' })).removed).toBe(1)
    expect(await a.get(record.id)).toBeUndefined()
  })
})
