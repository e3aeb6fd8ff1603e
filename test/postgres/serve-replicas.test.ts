import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connectHttp, type Served, stopServed } from '../helpers/serve-clients.js'
import { continueSession, startReplicas } from '../helpers/serve-replicas.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'
import { listeningUrl, ROOT, spawnServe } from '../helpers/spawn-serve.js'

const TOKEN = 'replica-test-token'
const work = mkdtempSync(join(tmpdir(), 'skillhost-replicas-'))
let server: SharedPostgres
let dbCount = 0
beforeAll(async () => {
  server = await sharedPostgres()
})
afterAll(async () => {
  rmSync(work, { recursive: true, force: true })
})

const served: Served = { spawned: [], clients: [] }
const pools: pg.Pool[] = []
afterEach(async () => {
  await stopServed(served)
  await Promise.all(pools.splice(0).map((p) => p.end()))
})

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n')

/** A fresh database, a copy of the example skills, and `n` real `skillhost serve --http --postgres` replicas. */
async function replicas(n: number, extra: readonly string[] = ['--no-scripts']) {
  const db = server.createDatabase(`replicas_${++dbCount}`)
  const root = join(work, `skills-${dbCount}`)
  cpSync(join(ROOT, 'examples/skills'), root, { recursive: true })
  const pool = new pg.Pool({ connectionString: db, max: 4 })
  pools.push(pool)
  const { urls, procs } = await startReplicas(served, {
    ...{ count: n, db, root, token: TOKEN, extra: () => extra },
    stateDir: (i) => join(work, `state-${dbCount}-${i}`),
  })
  return { db, root, pool, urls, procs }
}

const continueOn = (url: URL, sessionId: string) => continueSession(served, url, sessionId, TOKEN)

async function open(url: URL): Promise<{ client: Client; sessionId: string }> {
  const { client, transport } = await connectHttp(url, TOKEN)
  served.clients.push(client)
  return { client, sessionId: transport.sessionId as string }
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args })
const resultId = (r: unknown): string => {
  const id = /\[result (r_[0-9a-f]{16})/.exec(text(r))?.[1]
  if (!id) throw new Error(`no result id in ${text(r)}`)
  return id
}
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name)

describe('two skillhost serve --http --postgres replicas sharing one database', () => {
  it('load on A, call on B with the same session id; a result spooled by A is read on B', async () => {
    const { urls, procs } = await replicas(2)
    const [a, b] = urls as [URL, URL]
    const { client: onA, sessionId } = await open(a)
    expect((await call(onA, 'load_skill', { skill: 'json-tools' })).isError).toBeFalsy()
    const stats = await call(onA, 'json_stats', { value: { a: [1, 2, { b: null }] } })
    expect(stats.isError).toBeFalsy()
    const id = resultId(stats)

    const onB = await continueOn(b, sessionId)
    expect(await names(onB)).toContain('json_diff')
    const diff = await call(onB, 'json_diff', { before: { x: 1 }, after: { x: 2 } })
    expect(diff.isError).toBeFalsy()
    expect(text(diff)).toContain('/x')
    const read = await call(onB, 'artifact_cat', { id })
    expect(read.isError).toBeFalsy()
    expect(text(read)).toContain(text(stats).split('\n')[0] as string)
    expect(procs[1]?.stderr()).toContain(`session ${sessionId} restored`)
  })

  it('A is killed with SIGKILL mid-session; the conversation continues on B with nothing lost', async () => {
    const { urls, procs } = await replicas(2)
    const [a, b] = urls as [URL, URL]
    const { client: onA, sessionId } = await open(a)
    await call(onA, 'load_skill', { skill: 'json-tools' })
    await call(onA, 'load_skill', { skill: 'commit-messages' })
    const first = await call(onA, 'json_stats', { value: [1, 'two', { three: 3 }] })
    const id = resultId(first)
    // A call is in flight on A when it dies.
    const inFlight = call(onA, 'json_stats', { value: { deep: [[[[1]]]] } }).then(
      () => 'answered',
      () => 'cut off',
    )
    procs[0]?.child.kill('SIGKILL')
    await procs[0]?.exited
    await inFlight

    const onB = await continueOn(b, sessionId)
    const loaded = JSON.parse(text(await call(onB, 'list_loaded_skills')))
    expect(loaded.initialized).toEqual(['json-tools', 'commit-messages'])
    expect(loaded.projected).toEqual(['json-tools', 'commit-messages'])
    expect(await names(onB)).toEqual(expect.arrayContaining(['json_stats', 'json_diff']))
    const again = await call(onB, 'artifact_cat', { id })
    expect(again.isError).toBeFalsy()
    expect(text(again)).toContain(text(first).split('\n')[0] as string)
    const next = await call(onB, 'json_stats', { value: { ok: true } })
    expect(next.isError).toBeFalsy()
  })

  it('after a restart the same replica restores the session', async () => {
    const { urls, procs, db, root } = await replicas(1)
    const { client: before, sessionId } = await open(urls[0] as URL)
    await call(before, 'load_skill', { skill: 'json-tools' })
    const id = resultId(await call(before, 'json_stats', { value: [1, 2, 3] }))
    procs[0]?.child.kill('SIGTERM')
    expect(await procs[0]?.exited).toBe(0)
    const again = spawnServe([
      '--http',
      '0',
      '--token',
      TOKEN,
      '--postgres',
      db,
      '--no-scripts',
      '--state-dir',
      join(work, `state-restart-${dbCount}`),
      root,
    ])
    served.spawned.push(again)
    const after = await continueOn(await listeningUrl(again), sessionId)
    expect(await names(after)).toContain('json_stats')
    expect((await call(after, 'artifact_cat', { id })).isError).toBeFalsy()
    expect(again.stderr()).toContain(`session ${sessionId} restored`)
  })

  it('concurrent loads and unloads of one session on both replicas stay serialized', async () => {
    const { urls, pool } = await replicas(2)
    const [a, b] = urls as [URL, URL]
    const { client: onA, sessionId } = await open(a)
    const onB = await continueOn(b, sessionId)
    await names(onB)
    const ops = Array.from({ length: 24 }, (_, i) => {
      const client = i % 2 === 0 ? onA : onB
      const tool = i % 3 === 2 ? 'unload_skill' : 'load_skill'
      return call(client, tool, { skill: 'json-tools' }).then((r) => ({ tool, r }))
    })
    const outcomes = await Promise.all(ops)
    const ok = (tool: string) => outcomes.filter((o) => o.tool === tool && !o.r.isError).length
    for (const o of outcomes.filter((x) => x.r.isError))
      expect(text(o.r)).toMatch(/E_SKILL_ALREADY_LOADED|E_SKILL_NOT_LOADED/)
    const { rows } = await pool.query(
      'SELECT state, revision FROM skillhost.sessions WHERE id = $1',
      [sessionId],
    )
    const skills = rows[0].state.skills as { id: string }[]
    expect(skills.filter((s) => s.id === 'json-tools').length).toBeLessThanOrEqual(1)
    const loadedNow = skills.length === 1 ? 1 : 0
    // Each successful load was followed by a successful unload before the next
    // load could succeed: never two loads of one skill at once.
    expect(ok('load_skill') - ok('unload_skill')).toBe(loadedNow)
    // Every successful load and unload wrote once; besides them only a replica
    // taking the session over writes (its name as holder): at most once per
    // request, and once for B's restore.
    const writes = ok('load_skill') + ok('unload_skill')
    expect(Number(rows[0].revision)).toBeGreaterThanOrEqual(writes)
    expect(Number(rows[0].revision)).toBeLessThanOrEqual(writes + ops.length + 1)
    for (const client of [onA, onB]) {
      const offered = await names(client)
      expect(offered.filter((n) => n === 'json_stats').length).toBe(loadedNow)
    }
  })

  it('a rehydrate whose pinned version is gone gives E_SKILL_VERSION_GONE', async () => {
    const { urls, root } = await replicas(2)
    const [a, b] = urls as [URL, URL]
    const { client: onA, sessionId } = await open(a)
    await call(onA, 'load_skill', { skill: 'commit-messages' })
    writeFileSync(
      join(root, 'commit-messages', 'SKILL.md'),
      '---\nname: commit-messages\ndescription: Changed since the session loaded it.\n---\n\n# Changed\n',
    )
    const onB = await continueOn(b, sessionId)
    const failure = await onB.listTools().then(
      () => 'served',
      (err: Error) => err.message,
    )
    expect(failure).toContain('E_SKILL_VERSION_GONE')
    expect(failure).toContain("'commit-messages'")
    expect(failure).not.toContain(root)
  })

  it('LISTEN survives a dropped connection; refresh on A reaches B; hostile NOTIFY payloads change nothing', async () => {
    const { urls, root, pool, procs } = await replicas(2)
    const [a, b] = urls as [URL, URL]
    const { client: onA } = await open(a)
    const { client: onB } = await open(b)
    const version = async (client: Client) =>
      (
        JSON.parse(text(await call(client, 'list_skills', { query: 'commit-messages' })))
          .skills as { id: string; version: string }[]
      ).find((s) => s.id === 'commit-messages')?.version
    const before = await version(onB)
    // Cut every LISTEN connection; the replicas make them again.
    const listeners = () =>
      pool.query<{ pid: number }>(
        // This file's database only: the run's other files share the server (test/helpers/shared-postgres.ts).
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND application_name = 'skillhost' AND datname = current_database()",
      )
    const old = (await listeners()).rows.map((r) => r.pid)
    expect(old.length).toBe(2)
    await pool.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [old])
    for (let i = 0; i < 2000; i++) {
      const now = (await listeners()).rows.map((r) => r.pid)
      if (now.length === 2 && now.every((p) => !old.includes(p))) break
      await new Promise((r) => setTimeout(r, 10))
    }
    expect((await listeners()).rows.every((r) => !old.includes(r.pid))).toBe(true)
    // Hostile payloads: giant, SQL-ish, control characters. They trigger at most a refresh.
    await pool.query("SELECT pg_notify('skillhost_catalog', repeat('x', 7900))")
    await pool.query("SELECT pg_notify('skillhost_catalog', $1)", [
      '{"r":"\'; DROP TABLE skillhost.sessions; --\\u001b[31m"}',
    ])
    let changed = 0
    onB.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1
    })
    writeFileSync(
      join(root, 'commit-messages', 'SKILL.md'),
      '---\nname: commit-messages\ndescription: Write commit messages, second edition.\n---\n\n# Commit messages v2\n',
    )
    await call(onA, 'refresh_skills')
    let after = before
    for (let i = 0; i < 2000 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 10))
      after = await version(onB)
    }
    expect(after).not.toBe(before)
    expect(after).toBe(await version(onA))
    expect(changed).toBeGreaterThan(0)
    const { rows } = await pool.query("SELECT to_regclass('skillhost.sessions') IS NOT NULL AS ok")
    expect(rows[0].ok).toBe(true)
    for (const p of procs) {
      expect(p.stderr()).not.toContain('xxxxxxxxxx')
      expect(p.stderr()).not.toContain('DROP TABLE')
    }
    expect(procs[1]?.stderr()).toContain('catalog LISTEN connection lost, reconnecting')
  })

  it('a session restored on another replica finds its workspace files there (issue 36 item 2)', async () => {
    const { urls } = await replicas(2, [])
    const [a, b] = urls as [URL, URL]
    const { client: onA, sessionId } = await open(a)
    const wrote = await call(onA, 'workspace_write', { path: 'notes.txt', content: 'draft 1' })
    expect(wrote.isError).toBeFalsy()
    await call(onA, 'load_skill', { skill: 'commit-messages' })
    expect(text(await call(onA, 'workspace_list', { path: '' }))).toContain('notes.txt')

    const onB = await continueOn(b, sessionId)
    const listed = await call(onB, 'workspace_list', { path: '' })
    expect(text(listed)).not.toContain('NOT here')
    expect(text(listed)).toContain('notes.txt')
    expect(text(await call(onB, 'workspace_read', { path: 'notes.txt' }))).toContain('draft 1')
    // Back on A, which still holds the session: it sees what B wrote.
    await call(onB, 'workspace_write', { path: 'notes.txt', content: 'draft 2 from B' })
    expect(text(await call(onA, 'workspace_read', { path: 'notes.txt' }))).toContain(
      'draft 2 from B',
    )
  }, 120_000)
})

describe('serve --postgres at startup', () => {
  it('--postgres without --http is a usage error', async () => {
    const served = spawnServe(['--postgres', 'postgresql://127.0.0.1/x', 'examples/skills'])
    expect(await served.exited).toBe(2)
    expect(served.stderr()).toContain('--postgres needs --http')
  })

  it('a URL that is not postgres:// is a usage error that does not echo it', async () => {
    const served = spawnServe(['--http', '0', '--no-scripts', 'examples/skills'], {
      SKILLHOST_POSTGRES_URL: 'mysql://root:hunter2@db/x',
    })
    expect(await served.exited).toBe(2)
    expect(served.stderr()).toContain(
      'SKILLHOST_POSTGRES_URL needs a postgres:// or postgresql:// URL',
    )
    expect(served.stderr()).not.toContain('hunter2')
  })

  it('an unreachable database fails serve with a clear message, no stack, no password', async () => {
    const served = spawnServe([
      '--http',
      '0',
      '--no-scripts',
      '--postgres',
      'postgresql://admin:s3cret-pw@127.0.0.1:1/skills',
      'examples/skills',
    ])
    expect(await served.exited).toBe(1)
    const err = served.stderr()
    expect(err).toContain('cannot use PostgreSQL at postgresql://admin:***@127.0.0.1:1/skills')
    expect(err).toContain('ECONNREFUSED')
    expect(err).not.toContain('s3cret-pw')
    expect(err).not.toMatch(/\n\s+at /)
    expect(err).not.toContain('listening on')
  })

  it('a database that refuses the credentials fails the same way', async () => {
    const db = server.createDatabase(`refuse_${++dbCount}`)
    const url = new URL(db)
    url.username = 'nobody'
    url.password = 'pa ss'
    const served = spawnServe([
      '--http',
      '0',
      '--no-scripts',
      '--postgres',
      url.href,
      'examples/skills',
    ])
    expect(await served.exited).toBe(1)
    expect(served.stderr()).toContain('cannot use PostgreSQL at postgresql://nobody:***@')
    expect(served.stderr()).toContain('nobody')
    expect(served.stderr()).not.toContain('pa ss')
    expect(served.stderr()).not.toContain('pa%20ss')
  })
})
