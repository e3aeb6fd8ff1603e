// Hole 15 of issue 35: a session deleted through one replica kept serving its
// notification stream (GET) on another, holding the manager, workspace and
// slot there. Two replicas wired as `serve --http --postgres`.
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type TestPostgres } from '../helpers/postgres.js'
import {
  listTools,
  openSession,
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

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined)
})

async function replicas(n: number) {
  const url = server.createDatabase(`streams_${++databases}`)
  const made = await startReplicas(url, n, { deadlineMs: 1_000, storeCheckMs: 50 })
  cleanups.push(made.close)
  return made.replicas
}

/** Opens the session's notification stream on `url`; `ended` settles when the server ends it. */
async function openStream(url: URL, sessionId: string) {
  const controller = new AbortController()
  cleanups.push(async () => controller.abort())
  const res = await fetch(url, {
    method: 'GET',
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-03-26',
    },
    signal: controller.signal,
  })
  let open = res.status === 200
  const ended = (async () => {
    const reader = res.body?.getReader()
    while (reader && !(await reader.read()).done) {}
    open = false
  })().catch(() => {
    open = false
  })
  return { status: res.status, ended, isOpen: () => open }
}

/** Waits (bounded by count) until `ready()`; how many waits it took. */
async function until(ready: () => boolean, most = 400): Promise<number> {
  let waits = 0
  while (!ready() && waits < most) {
    await sleep(10)
    waits++
  }
  return waits
}

describe('hole 15: a session deleted through one replica ends on every replica', () => {
  it("B's open notification stream ends when A deletes the session, and B lets go of it", async () => {
    const [a, b] = await replicas(2)
    const id = await openSession(a!.http.url)
    const stream = await openStream(b!.http.url, id)
    expect(stream.status).toBe(200)
    expect(b!.http.sessionCount()).toBe(1)
    expect((await send(a!.http.url, id, 'DELETE')).status).toBe(200)
    await stream.ended
    expect(stream.isOpen()).toBe(false)
    expect(b!.http.sessionCount()).toBe(0)
    expect(workspaceKept(b!, id)).toBe(false)
  })

  it('a GET to a replica still holding a deleted session is 404, not a new stream', async () => {
    const [a, b] = await replicas(2)
    const id = await openSession(a!.http.url)
    // B holds the session (restored for a POST), with no stream open.
    expect((await listTools(b!.http.url, id)).status).toBe(200)
    expect((await send(a!.http.url, id, 'DELETE')).status).toBe(200)
    const stream = await openStream(b!.http.url, id)
    expect(stream.status).toBe(404)
    expect(b!.http.sessionCount()).toBe(0)
  })

  it('a database outage does not end the stream; the deletion after it does', async () => {
    const [a, b] = await replicas(2)
    const id = await openSession(a!.http.url)
    const stream = await openStream(b!.http.url, id)
    expect(stream.status).toBe(200)
    const before = b!.errors.length
    server.down()
    try {
      // Several checks fail while it is down (counted), and none ends the session.
      const waits = await until(() => b!.errors.length >= before + 3)
      expect(b!.errors.length - before).toBeGreaterThanOrEqual(3)
      expect(waits).toBeLessThan(400)
      expect(stream.isOpen()).toBe(true)
      expect(b!.http.sessionCount()).toBe(1)
    } finally {
      server.up()
    }
    expect((await send(a!.http.url, id, 'DELETE')).status).toBe(200)
    await stream.ended
    expect(b!.http.sessionCount()).toBe(0)
  })
})
