import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  migratePostgresWorkspaces,
  PostgresWorkspaceStore,
} from '../../src/adapters/postgres/index.js'
import { SkillHostError } from '../../src/common/errors.js'
import {
  type SessionWorkspaceStore,
  type StoredWorkspaceFile,
  WorkspaceMirror,
} from '../../src/manager/internal.js'
import { type ManagerWorkspace, SessionWorkspace } from '../../src/tiers/scripts/index.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

// Issue 36 item 2: a session's workspace kept in PostgreSQL, content-addressed,
// counted against the workspace's caps, removed with the session, and
// restored through the door on another server process.
let server: SharedPostgres
let pool: pg.Pool
let store: PostgresWorkspaceStore
const temp = mkdtempSync(join(tmpdir(), 'skillhost-ws-store-'))
const opened: SessionWorkspace[] = []
let sessions = 0

beforeAll(async () => {
  server = await sharedPostgres()
  pool = new pg.Pool({ connectionString: server.createDatabase('workspaces'), max: 8 })
  pool.on('error', () => undefined)
  await migratePostgresWorkspaces(pool)
  await migratePostgresWorkspaces(pool) // idempotent
  store = new PostgresWorkspaceStore({ pool })
})
afterAll(async () => {
  await Promise.all(opened.map((w) => w.dispose()))
  await pool?.end()
  rmSync(temp, { recursive: true, force: true })
})

/** A fresh private workspace, as one server process's session has it. */
async function workspace(
  maxBytes?: number,
): Promise<{ ws: SessionWorkspace; mw: ManagerWorkspace }> {
  const dir = mkdtempSync(join(temp, 'ws-'))
  const ws = await SessionWorkspace.create({
    privateDir: async () => dir,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  })
  opened.push(ws)
  const mw: ManagerWorkspace = {
    open: async () => ws,
    path: async () => ws.path,
    put: (p, d) => ws.put(p, d),
    get: async (p) => (await ws.get(p)).bytes,
    list: (p) => ws.list(p),
    remove: (p) => ws.remove(p),
    onChange: (listener) => ws.changes.onChange(listener),
  }
  return { ws, mw }
}

const newSession = (): string => `s-${++sessions}-${Date.now()}`
const mirror = (sessionId: string, mw: ManagerWorkspace, s: SessionWorkspaceStore = store) =>
  new WorkspaceMirror({ store: s, sessionId, workspace: mw })
const count = async (sql: string, params: unknown[] = []): Promise<number> =>
  Number((await pool.query<{ n: string }>(sql, params)).rows[0]?.n)
const blobCount = () => count('SELECT count(*) AS n FROM skillhost.workspace_blobs')
const codeOf = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (SkillHostError.isInstance(e) ? e.code : String(e)),
  )

const BINARY = Buffer.from([0xef, 0xbb, 0xbf, 0x00, 0xff, 0x0d, 0x0a, 0xfe])

describe('PostgresWorkspaceStore with WorkspaceMirror', () => {
  it('stores a workspace and restores it byte-exact, modes kept, in another workspace', async () => {
    const id = newSession()
    const a = await workspace()
    await a.ws.put('in.bin', BINARY)
    await a.ws.put('deep/er/empty.txt', new Uint8Array(0))
    await a.ws.put('run.sh', '#!/bin/sh\necho hi\n', { executable: true })
    expect(await mirror(id, a.mw).store()).toEqual({ put: 3, removed: 0 })
    const b = await workspace()
    expect(await mirror(id, b.mw).restore()).toBe(3)
    expect(readFileSync(join(b.ws.path, 'in.bin')).equals(BINARY)).toBe(true)
    expect(readFileSync(join(b.ws.path, 'deep/er/empty.txt')).length).toBe(0)
    expect(statSync(join(b.ws.path, 'run.sh')).mode & 0o100).toBe(0o100)
    expect(statSync(join(b.ws.path, 'in.bin')).mode & 0o111).toBe(0)
  })

  it('sends only what changed: nothing, one rewrite, one removal', async () => {
    const id = newSession()
    const a = await workspace()
    const m = mirror(id, a.mw)
    await a.ws.put('a.txt', 'one')
    await a.ws.put('b.txt', 'two')
    expect(await m.store()).toEqual({ put: 2, removed: 0 })
    expect(await m.store()).toEqual({ put: 0, removed: 0 })
    await a.ws.put('a.txt', 'one, again')
    expect(await m.store()).toEqual({ put: 1, removed: 0 })
    await a.ws.remove('b.txt')
    expect(await m.store()).toEqual({ put: 0, removed: 1 })
    const files = await store.manifest(id, 100)
    expect(files.map((f) => f.path)).toEqual(['a.txt'])
    expect(files[0]?.size).toBe('one, again'.length)
  })

  it('a process holding the session catches up with what another stored (pull): writes, rewrites, removals', async () => {
    const id = newSession()
    const a = await workspace()
    const b = await workspace()
    const onA = mirror(id, a.mw)
    const onB = mirror(id, b.mw)
    await a.ws.put('x.txt', 'x from A')
    await a.ws.put('y.txt', 'y from A')
    await onA.store()
    expect(await onB.restore()).toBe(2)
    expect(await onB.pull()).toBe(0) // nothing new: one query, nothing written
    await b.ws.put('x.txt', 'x from B')
    await b.ws.remove('y.txt')
    await b.ws.put('z.bin', BINARY)
    await onB.store()
    expect(await onA.pull()).toBe(2)
    expect(readFileSync(join(a.ws.path, 'x.txt'), 'utf8')).toBe('x from B')
    expect(existsSync(join(a.ws.path, 'y.txt'))).toBe(false)
    expect(readFileSync(join(a.ws.path, 'z.bin')).equals(BINARY)).toBe(true)
    // A's own next store sends nothing: what it pulled is what is stored.
    expect(await onA.store()).toEqual({ put: 0, removed: 0 })
    expect(await onA.pull()).toBe(0)
  })

  it('deduplicates: two sessions holding the same bytes share one blob', async () => {
    const before = await blobCount()
    const bytes = Buffer.from(`shared ${Date.now()}`)
    for (const id of [newSession(), newSession()]) {
      const w = await workspace()
      await w.ws.put('same.bin', bytes)
      await w.ws.put('again/same-too.bin', bytes)
      await mirror(id, w.mw).store()
    }
    expect(await blobCount()).toBe(before + 1)
  })

  it('refuses a store past the workspace cap with E_SKILL_WORKSPACE_FULL and keeps nothing of it', async () => {
    const id = newSession()
    // Two processes serving one session: each under the cap, together over it.
    const a = await workspace(1000)
    const b = await workspace(1000)
    await a.ws.put('x.bin', Buffer.alloc(600, 1))
    await mirror(id, a.mw).store()
    const blobs = await blobCount()
    await b.ws.put('y.bin', Buffer.alloc(600, 2))
    await b.ws.put('z.bin', Buffer.alloc(10, 3))
    expect(await codeOf(mirror(id, b.mw).store())).toBe('E_SKILL_WORKSPACE_FULL')
    expect((await store.manifest(id, 100)).map((f) => f.path)).toEqual(['x.bin'])
    expect(await blobCount()).toBe(blobs)
  })

  it('session end removes its files and the blobs no other session holds', async () => {
    const [one, two] = [newSession(), newSession()]
    const shared = Buffer.from(`both ${Date.now()}`)
    const w1 = await workspace()
    await w1.ws.put('shared.txt', shared)
    await w1.ws.put('own.txt', `only one ${Date.now()}`)
    await mirror(one, w1.mw).store()
    const w2 = await workspace()
    await w2.ws.put('shared.txt', shared)
    await mirror(two, w2.mw).store()
    const blobs = await blobCount()
    await store.remove(one)
    expect(await store.manifest(one, 100)).toEqual([])
    expect(await blobCount()).toBe(blobs - 1)
    const w3 = await workspace()
    expect(await mirror(two, w3.mw).restore()).toBe(1)
    expect(readFileSync(join(w3.ws.path, 'shared.txt')).equals(shared)).toBe(true)
    await store.remove(two)
    expect(await blobCount()).toBe(blobs - 2)
  })

  it('a session ending while another stores the same blob never leaves a file without its bytes (raced, counted)', async () => {
    const ATTEMPTS = 40
    let done = 0
    const retriesBefore = store.retries
    for (let i = 0; i < ATTEMPTS; i++) {
      const bytes = Buffer.from(`race ${i} ${Date.now()}`)
      const [ending, writing] = [newSession(), newSession()]
      const w1 = await workspace()
      await w1.ws.put('r.bin', bytes)
      await mirror(ending, w1.mw).store()
      const w2 = await workspace()
      await w2.ws.put(`r${i}.bin`, bytes)
      await Promise.all([store.remove(ending), mirror(writing, w2.mw).store()])
      const files = await store.manifest(writing, 10)
      expect(files.map((f) => f.path)).toEqual([`r${i}.bin`])
      const got = await store.blobs(files.map((f) => f.digest))
      expect(Buffer.from(got.get(files[0]?.digest as string) as Uint8Array).equals(bytes)).toBe(
        true,
      )
      await store.remove(writing)
      done++
    }
    expect(done).toBe(ATTEMPTS)
    // No blob outlives every session that held it.
    expect(
      await count(
        'SELECT count(*) AS n FROM skillhost.workspace_blobs b WHERE NOT EXISTS (SELECT 1 FROM skillhost.workspace_files f WHERE f.digest = b.digest)',
      ),
    ).toBe(0)
    // How often a transaction met the other one on the shared blob and ran again.
    console.log(`race: ${ATTEMPTS} attempts, ${store.retries - retriesBefore} retried transactions`)
  })

  it('a symlink a script made is not stored, as its target or at all; its target stays private', async () => {
    const id = newSession()
    const secret = join(temp, `secret-${Date.now()}.txt`)
    writeFileSync(secret, 'host secret bytes')
    const a = await workspace()
    await a.ws.put('real.txt', 'real')
    symlinkSync(secret, join(a.ws.path, 'link.txt'))
    symlinkSync(temp, join(a.ws.path, 'dirlink'))
    await mirror(id, a.mw).store()
    expect((await store.manifest(id, 100)).map((f) => f.path)).toEqual(['real.txt'])
    expect(
      await count('SELECT count(*) AS n FROM skillhost.workspace_blobs WHERE data = $1', [
        Buffer.from('host secret bytes'),
      ]),
    ).toBe(0)
  })
})

describe('restore refuses what the database says when it is not a workspace (E_WORKSPACE_RESTORE_REFUSED)', () => {
  /** Stores one real file for `id`, then renames its row to `name` straight in the table. */
  async function planted(name: string): Promise<string> {
    const id = newSession()
    const w = await workspace()
    await w.ws.put('ok.txt', 'fine')
    await w.ws.put('planted.txt', `planted ${Date.now()}`)
    await mirror(id, w.mw).store()
    await pool.query(
      `UPDATE skillhost.workspace_files SET path = $2 WHERE session = $1 AND path = 'planted.txt'`,
      [id, name],
    )
    return id
  }

  /** Restores `id` into a fresh workspace: refused, nothing written in it or beside it. */
  async function refusedWhole(id: string, s: SessionWorkspaceStore = store): Promise<void> {
    const w = await workspace()
    const around = readdirSync(temp).sort()
    expect(await codeOf(mirror(id, w.mw, s).restore())).toBe('E_WORKSPACE_RESTORE_REFUSED')
    expect(readdirSync(w.ws.path)).toEqual([])
    expect(readdirSync(temp).sort()).toEqual(around)
  }

  it.each([
    ['../x'],
    ['a/../../x'],
    ['.git/config'],
    ['deep/.git/hooks/post-checkout'],
    ['/etc/x'],
    ['line\nbreak.txt'],
    ['esc\u001b[2J.txt'],
    [`${'n'.repeat(256)}.txt`],
    [`${'d/'.repeat(2100)}x`],
    ['a//b'],
    ['./a'],
    ['a\\..\\..\\x'],
  ])('a stored name %j', async (name) => {
    await refusedWhole(await planted(name))
    expect(existsSync(join(temp, 'x'))).toBe(false)
  })

  it('a NUL cannot be stored in a name (PostgreSQL text refuses it); a store that returns one is refused', async () => {
    const id = await planted('nul-later.txt')
    await expect(
      pool.query(`UPDATE skillhost.workspace_files SET path = $2 WHERE session = $1`, [id, 'a\0b']),
    ).rejects.toThrow()
    const lying: SessionWorkspaceStore = {
      manifest: async (s, n) =>
        (await store.manifest(s, n)).map((f, i) => (i === 0 ? { ...f, path: 'a\0b' } : f)),
      blobs: (d) => store.blobs(d),
      commit: (s, c) => store.commit(s, c),
      generation: (s) => store.generation(s),
      remove: (s) => store.remove(s),
    }
    await refusedWhole(id, lying)
  })

  it('attack: bytes that do not match their digest (a tampered blob) are refused, nothing written', async () => {
    const id = await planted('fine-name.txt')
    const [file] = (await store.manifest(id, 10)).filter((f) => f.path === 'fine-name.txt')
    await pool.query('UPDATE skillhost.workspace_blobs SET data = $2 WHERE digest = $1', [
      file?.digest,
      Buffer.from('evil replacement'),
    ])
    await refusedWhole(id)
  })

  it('attack: a name that is both a file and a folder (a/ then a/b) is refused before any write', async () => {
    const id = await planted('ok.txt/inner')
    await refusedWhole(id)
  })

  it('attack: more files or bytes than the workspace may hold are refused before any write', async () => {
    const id = newSession()
    const w = await workspace()
    for (let i = 0; i < 5; i++) await w.ws.put(`f${i}.bin`, Buffer.alloc(300, i))
    await mirror(id, w.mw).store()
    const small = await workspace(1000)
    expect(await codeOf(mirror(id, small.mw).restore())).toBe('E_WORKSPACE_RESTORE_REFUSED')
    expect(readdirSync(small.ws.path)).toEqual([])
  })

  it('attack: a setuid mode in the table restores as a plain executable, never setuid or setgid', async () => {
    const id = await planted('tool.sh')
    await pool.query(
      `UPDATE skillhost.workspace_files SET mode = $2 WHERE session = $1 AND path = 'tool.sh'`,
      [id, 0o6777],
    )
    const w = await workspace()
    await mirror(id, w.mw).restore()
    const mode = statSync(join(w.ws.path, 'tool.sh')).mode
    expect(mode & 0o6000).toBe(0)
    expect(mode & 0o002).toBe(0)
    expect(mode & 0o100).toBe(0o100)
  })

  it('attack: a symlink already in the workspace is never written through by a restore', async () => {
    const id = newSession()
    const src = await workspace()
    await src.ws.put('out/x.txt', 'restored')
    await mirror(id, src.mw).store()
    const outside = mkdtempSync(join(temp, 'outside-'))
    const w = await workspace()
    symlinkSync(outside, join(w.ws.path, 'out'))
    expect(await codeOf(mirror(id, w.mw).restore())).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    expect(readdirSync(outside)).toEqual([])
  })

  it('malformed digests, sizes and modes in a manifest are refused', async () => {
    const base = { path: 'f.txt', digest: 'a'.repeat(64), size: 1, mode: 0o644 }
    const bad: StoredWorkspaceFile[] = [
      { ...base, digest: 'A'.repeat(64) },
      { ...base, size: -1 },
      { ...base, size: 2 ** 60 },
      { ...base, mode: 0o10000 },
    ]
    for (const f of bad) {
      const lying: SessionWorkspaceStore = {
        manifest: async () => [f],
        blobs: async () => new Map(),
        commit: async () => 1,
        generation: async () => 1,
        remove: async () => undefined,
      }
      const w = await workspace()
      expect(await codeOf(mirror('x', w.mw, lying).restore())).toBe('E_WORKSPACE_RESTORE_REFUSED')
      expect(readdirSync(w.ws.path)).toEqual([])
    }
  })
})
