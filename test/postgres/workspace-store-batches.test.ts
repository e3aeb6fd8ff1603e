import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  migratePostgresWorkspaces,
  PostgresWorkspaceStore,
} from '../../src/adapters/postgres/index.js'
import { SkillHostError } from '../../src/common/errors.js'
import { RESTORE_BATCH_FILES, WorkspaceMirror } from '../../src/manager/internal.js'
import { type ManagerWorkspace, SessionWorkspace } from '../../src/tiers/scripts/index.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

// Issue 36 item 2 (soak brief item 1): a restore fetches its blobs in a few
// queries, bounded by count and bytes, never one per file and never one
// unbounded result; a refusal in a later batch leaves nothing written.
let server: SharedPostgres
let pool: pg.Pool
const temp = mkdtempSync(join(tmpdir(), 'skillhost-ws-batches-'))
const opened: SessionWorkspace[] = []
let sessions = 0

beforeAll(async () => {
  server = await sharedPostgres()
  pool = new pg.Pool({ connectionString: server.createDatabase('batches'), max: 4 })
  pool.on('error', () => undefined)
  await migratePostgresWorkspaces(pool)
})
afterAll(async () => {
  await Promise.all(opened.map((w) => w.dispose()))
  await pool?.end()
  rmSync(temp, { recursive: true, force: true })
})

async function workspace(): Promise<{ ws: SessionWorkspace; mw: ManagerWorkspace }> {
  const dir = mkdtempSync(join(temp, 'ws-'))
  const ws = await SessionWorkspace.create({ privateDir: async () => dir })
  opened.push(ws)
  return { ws, mw: { open: async () => ws } as unknown as ManagerWorkspace }
}

/** A store on `pool` that counts every query it sends through the pool (restore uses no transaction). */
function countingStore(): { store: PostgresWorkspaceStore; queries: () => number } {
  let n = 0
  const counted = new Proxy(pool, {
    get(target, key) {
      if (key === 'query')
        return (...args: unknown[]) => {
          n++
          return (target.query as (...a: unknown[]) => unknown)(...args)
        }
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { store: new PostgresWorkspaceStore({ pool: counted }), queries: () => n }
}

/** Stores `files` for a new session; returns its id. */
async function stored(files: { path: string; bytes: Uint8Array }[]): Promise<string> {
  const id = `batch-${++sessions}-${Date.now()}`
  const w = await workspace()
  for (const f of files) await w.ws.put(f.path, f.bytes)
  await new WorkspaceMirror({
    store: new PostgresWorkspaceStore({ pool }),
    sessionId: id,
    workspace: w.mw,
  }).store()
  return id
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (SkillHostError.isInstance(e) ? e.code : String(e)),
  )

describe('restore in batches (PostgresWorkspaceStore + WorkspaceMirror)', () => {
  it('a restore of N small files makes 2 + ceil(N / RESTORE_BATCH_FILES) queries, whatever N', async () => {
    for (const n of [1, RESTORE_BATCH_FILES, 600]) {
      const files = Array.from({ length: n }, (_, i) => ({
        path: `d${i % 7}/f${i}.bin`,
        bytes: randomBytes(64),
      }))
      const id = await stored(files)
      const { store, queries } = countingStore()
      const w = await workspace()
      expect(await new WorkspaceMirror({ store, sessionId: id, workspace: w.mw }).restore()).toBe(n)
      // generation, manifest, then one query per batch of blobs.
      expect(queries()).toBe(2 + Math.ceil(n / RESTORE_BATCH_FILES))
      for (const f of files.slice(0, 3).concat(files.slice(-2)))
        expect(readFileSync(join(w.ws.path, f.path)).equals(Buffer.from(f.bytes))).toBe(true)
    }
  }, 120_000)

  it('batches are bounded by bytes too: 18 files of 1 MiB come in 2 queries of at most 16 MiB', async () => {
    const files = Array.from({ length: 18 }, (_, i) => ({
      path: `big/${i}.bin`,
      bytes: randomBytes(1024 * 1024),
    }))
    const id = await stored(files)
    const { store, queries } = countingStore()
    const w = await workspace()
    expect(await new WorkspaceMirror({ store, sessionId: id, workspace: w.mw }).restore()).toBe(18)
    expect(queries()).toBe(2 + 2)
  }, 120_000)

  it('the store itself never asks for more than one batch of digests per query', async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({
      path: `f${i}.bin`,
      bytes: randomBytes(16),
    }))
    const id = await stored(files)
    const { store, queries } = countingStore()
    const manifest = await store.manifest(id, 1000)
    const got = await store.blobs(manifest.map((f) => f.digest))
    expect(got.size).toBe(300)
    expect(queries()).toBe(1 + Math.ceil(300 / 256))
  }, 120_000)

  it('attack: a tampered blob in the last batch refuses the restore, and nothing it wrote stays', async () => {
    const n = RESTORE_BATCH_FILES + 40
    const files = Array.from({ length: n }, (_, i) => ({
      path: `x/f${String(i).padStart(4, '0')}.bin`,
      bytes: randomBytes(32),
    }))
    files.push({ path: 'zz-last.bin', bytes: randomBytes(32) })
    const id = await stored(files)
    const last = (
      await pool.query<{ digest: string }>(
        `SELECT digest FROM skillhost.workspace_files WHERE session = $1 AND path = 'zz-last.bin'`,
        [id],
      )
    ).rows[0]?.digest
    await pool.query('UPDATE skillhost.workspace_blobs SET data = $2 WHERE digest = $1', [
      last,
      Buffer.from('evil replacement of 32 bytes....'),
    ])
    const { store, queries } = countingStore()
    const w = await workspace()
    await w.ws.put('mine.txt', 'was here before')
    expect(
      await codeOf(new WorkspaceMirror({ store, sessionId: id, workspace: w.mw }).restore()),
    ).toBe('E_WORKSPACE_RESTORE_REFUSED')
    // The first batch was fetched and written before the second was: both ran.
    expect(queries()).toBe(2 + 2)
    expect(readdirSync(w.ws.path)).toEqual(['mine.txt'])
  }, 120_000)
})
