// Holes 11–14 of issue 35: what a database outage or hang did to sessions
// shared through PostgreSQL. Two replicas wired as `serve --http --postgres`
// (openServePostgres: pools with deadlines), a private server taken down
// (`down`: connections refused) or hung (`pause`: SIGSTOP to every server
// process, so nothing answers), then brought back.
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { personText } from '../../src/common/errors.js'
import { startPostgres, type TestPostgres } from '../helpers/postgres.js'
import {
  callTool,
  initialize,
  listTools,
  openSession,
  type Reply,
  send,
  startReplicas,
  workspaceKept,
} from '../helpers/shared-session-rig.js'

let server: TestPostgres
let databases = 0
beforeAll(async () => {
  server = await startPostgres()
})
afterAll(() => server?.stop())

let closeReplicas: (() => Promise<void>) | undefined
afterEach(async () => {
  await closeReplicas?.()
  closeReplicas = undefined
})

async function replicas(n: number, deadlineMs = 1_000) {
  const url = server.createDatabase(`outage_${++databases}`)
  const made = await startReplicas(url, n, { deadlineMs })
  closeReplicas = made.close
  return { url, ...made }
}

/** Runs `during` with the database down (connections refused), then brings it back. */
async function withOutage<T>(during: () => Promise<T>): Promise<T> {
  server.down()
  try {
    return await during()
  } finally {
    server.up()
  }
}

/** Runs `during` with the database hung (every process stopped), then lets it run again. */
async function withHang<T>(during: () => Promise<T>): Promise<T> {
  expect(server.pause()).toBeGreaterThan(1)
  try {
    return await during()
  } finally {
    server.resume()
  }
}

/** A retryable 503 carrying E_SESSION_STORE_FAILED and none of the driver's words. */
function expectRetryable(reply: Reply, port: string): void {
  expect(reply.status, reply.text).toBe(503)
  expect(reply.retryAfter).toBe('1')
  expect(reply.json.error?.data?.code).toBe('E_SESSION_STORE_FAILED')
  for (const word of ['ECONNREFUSED', '127.0.0.1', port, 'timeout', 'postgres', 'Error:'])
    expect(reply.text).not.toContain(word)
}

const toolNames = (reply: Reply) => reply.json.result?.tools?.map((t) => t.name) ?? []

describe('hole 11: a database blip keeps live sessions and their files', () => {
  it('a failed revision check answers 503 E_SESSION_STORE_FAILED; the session, its skills and files stay', async () => {
    const {
      url,
      replicas: [a],
    } = await replicas(1)
    const port = new URL(url).port
    const id = await openSession(a!.http.url)
    expect((await callTool(a!.http.url, id, 'load_skill', { skill: 'greeter' })).status).toBe(200)
    const during = await withOutage(async () => [
      await listTools(a!.http.url, id, 3),
      // Ways around: a tool call, a lifecycle call, a notification; none ends it.
      await callTool(a!.http.url, id, 'greet', { name: 'Ada' }, 4),
      await callTool(a!.http.url, id, 'list_loaded_skills', {}, 5),
      await send(a!.http.url, id, { jsonrpc: '2.0', method: 'notifications/initialized' }),
    ])
    expect(during).toHaveLength(4)
    for (const reply of during) expectRetryable(reply, port)
    expect(a!.http.sessionCount()).toBe(1)
    expect(workspaceKept(a!, id)).toBe(true)
    // Back: the same session, with its skill, on the same manager and files.
    const after = await listTools(a!.http.url, id, 6)
    expect(after.status).toBe(200)
    expect(toolNames(after)).toContain('greet')
    expect(workspaceKept(a!, id)).toBe(true)
    expect(a!.errors.length).toBeGreaterThanOrEqual(4)
  })
})

describe('hole 12: a hung database fails requests at its deadline, and the replica recovers', () => {
  it('tools/list, a tool call, a load and an initialize on a SIGSTOPped database each get 503 within the deadline', async () => {
    const {
      url,
      replicas: [a],
    } = await replicas(1)
    const port = new URL(url).port
    const id = await openSession(a!.http.url)
    const replies = await withHang(async () => [
      await listTools(a!.http.url, id, 3),
      await callTool(a!.http.url, id, 'load_skill', { skill: 'greeter' }, 4),
      await initialize(a!.http.url),
    ])
    expect(replies).toHaveLength(3)
    for (const reply of replies) expectRetryable(reply, port)
    expect(a!.http.sessionCount()).toBe(1)
    expect(workspaceKept(a!, id)).toBe(true)
    // The database answers again: so does the replica, on fresh connections.
    const loaded = await callTool(a!.http.url, id, 'load_skill', { skill: 'greeter' }, 5)
    expect(loaded.status).toBe(200)
    expect(loaded.json.result?.isError).toBeFalsy()
    expect(toolNames(await listTools(a!.http.url, id, 6))).toContain('greet')
    expect((await initialize(a!.http.url)).status).toBe(200)
  })
})

describe("hole 13: initialize during an outage is a retryable 503, never a parse error with the driver's words", () => {
  it('initialize, and a restore of a stored session on another replica, answer 503 with the code only', async () => {
    const {
      url,
      replicas: [a, b],
    } = await replicas(2)
    const port = new URL(url).port
    const id = await openSession(a!.http.url)
    const replies = await withOutage(async () => [
      await initialize(a!.http.url),
      await initialize(b!.http.url),
      // B does not hold the session: restoring it needs the store.
      await listTools(b!.http.url, id, 7),
    ])
    expect(replies).toHaveLength(3)
    for (const reply of replies) {
      expectRetryable(reply, port)
      expect(reply.json.error?.message).not.toMatch(/parse error/i)
    }
    // The driver's words went to the log (the person text serve logs), not the client.
    const logged = [...a!.errors, ...b!.errors].map((e) => personText(e as Error))
    expect(logged).toHaveLength(3)
    for (const line of logged) expect(line).toMatch(/ECONNREFUSED|terminated|connect/)
    expect(a!.http.sessionCount() + b!.http.sessionCount()).toBe(1)
    // Nothing half-made was stored: the one session is the only row.
    const pool = new pg.Pool({ connectionString: url })
    try {
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM skillhost.sessions')
      expect(rows[0].n).toBe(1)
    } finally {
      await pool.end()
    }
  })
})

describe('hole 14: a DELETE succeeds only once the session and its results are gone', () => {
  it('a DELETE during an outage is 503 on the replica holding it and on another; after it, one DELETE removes both', async () => {
    const {
      url,
      replicas: [a, b],
    } = await replicas(2)
    const port = new URL(url).port
    const id = await openSession(a!.http.url)
    const result = await a!.pg.spoolFor(id).put('a document of the user')
    const deletes = await withOutage(async () => [
      await send(a!.http.url, id, 'DELETE'),
      await send(b!.http.url, id, 'DELETE'),
    ])
    for (const reply of deletes) expectRetryable(reply, port)
    // The session survived the failed DELETEs, on A with its files.
    expect(a!.http.sessionCount()).toBe(1)
    expect(workspaceKept(a!, id)).toBe(true)
    expect((await listTools(a!.http.url, id, 8)).status).toBe(200)
    expect(await a!.pg.spoolFor(id).stat(result.id)).toBeDefined()
    // Now it goes, everywhere, results included.
    expect((await send(b!.http.url, id, 'DELETE')).status).toBe(200)
    expect(await a!.pg.sessionStore.get(id)).toBeUndefined()
    expect(await a!.pg.spoolFor(id).stat(result.id)).toBeUndefined()
    expect((await listTools(a!.http.url, id, 9)).status).toBe(404)
    expect((await send(a!.http.url, id, 'DELETE')).status).toBe(404)
  })

  it('a DELETE through the replica holding the session, after the outage, ends it there and in the store', async () => {
    const {
      replicas: [a],
    } = await replicas(1)
    const id = await openSession(a!.http.url)
    const result = await a!.pg.spoolFor(id).put('x')
    expect((await send(a!.http.url, id, 'DELETE')).status).toBe(200)
    expect(a!.http.sessionCount()).toBe(0)
    expect(await a!.pg.sessionStore.get(id)).toBeUndefined()
    expect(await a!.pg.spoolFor(id).stat(result.id)).toBeUndefined()
  })
})
