import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type HttpLimit, type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { Tool } from '../../src/common/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { modernRequest } from '../helpers/mcp-http-requests.js'

// 2026-07-28 over HTTP has no session: each request gets one of its own
// (http-stateless.ts). What that must not cost: the session cap, and a
// session left behind by a client that went away.

const servers: McpHttpServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

interface Counts {
  made: number
  disposed: number
  aborted: number
  started: number
}

async function serve(maxSessions: number): Promise<{
  server: McpHttpServer
  counts: Counts
  limits: HttpLimit[]
}> {
  const counts: Counts = { made: 0, disposed: 0, aborted: 0, started: 0 }
  const limits: HttpLimit[] = []
  // Waits until its session ends, counting starts and aborts.
  const hold = new Tool({
    name: 'hold',
    description: 'Waits until the session ends.',
    inputSchema: { type: 'object', properties: {} },
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        counts.started++
        ctx.abortSignal.addEventListener('abort', () => {
          counts.aborted++
          resolve('aborted')
        })
      }),
  })
  const server = await serveMcpHttp({
    host: '127.0.0.1',
    maxSessions,
    hostTools: [hold],
    createManager: async (scope) => {
      counts.made++
      scope.disposables.add(() => {
        counts.disposed++
      })
      return createSkillManager({
        sources: [new InMemorySkillSource({ skills: [] })],
        gate: async () => undefined,
      })
    },
    onLimit: (event) => limits.push(event.limit),
  })
  servers.push(server)
  return { server, counts, limits }
}

describe('stateless 2026-07-28 requests over HTTP', () => {
  it('each gets a session of its own, disposed once answered, none held', async () => {
    const { server, counts } = await serve(4)
    for (let i = 0; i < 5; i++) {
      const res = await fetch(server.url, modernRequest('tools/list'))
      expect(res.status).toBe(200)
      expect(((await res.json()) as { result: { resultType: string } }).result.resultType).toBe(
        'complete',
      )
    }
    expect(counts).toMatchObject({ made: 5, disposed: 5 })
    expect(server.sessionCount()).toBe(0)
    // server/discover needs no session at all.
    const discover = await fetch(server.url, modernRequest('server/discover'))
    expect(discover.status).toBe(200)
    expect(counts.made).toBe(5)
  })

  it('counts against the session cap: refused (503) while 2025 sessions fill it', async () => {
    const { server, limits } = await serve(1)
    const client = new Client({ name: 'legacy', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(server.url)
    await client.connect(transport)
    const refused = await fetch(server.url, modernRequest('tools/list'))
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(limits).toEqual(['sessions'])
    await transport.terminateSession()
    await client.close()
    await expect.poll(() => server.sessionCount()).toBe(0)
    const served = await fetch(server.url, modernRequest('tools/list'))
    expect(served.status).toBe(200)
  })

  it('a client that goes away ends its request session and aborts its call', async () => {
    // Two slots, three rounds: a session left behind would refuse the third.
    const { server, counts } = await serve(2)
    for (let round = 1; round <= 3; round++) {
      const controller = new AbortController()
      const pending = fetch(server.url, {
        ...modernRequest('tools/call', { name: 'hold', arguments: {} }),
        signal: controller.signal,
      }).then(
        (res) => res.status,
        () => 'aborted',
      )
      await expect.poll(() => counts.started).toBe(round)
      controller.abort()
      expect(await pending).toBe('aborted')
      await expect.poll(() => counts.aborted).toBe(round)
      await expect.poll(() => counts.disposed).toBe(round)
    }
    expect(counts.made).toBe(3)
  })

  it('a client gone while its session is still being made: disposed, the call never runs, the slot comes back (request and listen)', async () => {
    // The manager is made only when the test says, after the client left:
    // the server must not miss a close that came before it listened.
    let made = 0
    let disposed = 0
    let started = 0
    const gates: Array<() => void> = []
    const hold = new Tool({
      name: 'hold',
      description: 'Waits until its call is aborted.',
      inputSchema: { type: 'object', properties: {} },
      handler: (_args, ctx) =>
        new Promise<string>((resolve) => {
          started++
          if (ctx.abortSignal.aborted) resolve('aborted')
          ctx.abortSignal.addEventListener('abort', () => resolve('aborted'))
        }),
    })
    const server = await serveMcpHttp({
      host: '127.0.0.1',
      maxSessions: 1,
      hostTools: [hold],
      createManager: async (scope) => {
        made++
        scope.disposables.add(() => {
          disposed++
        })
        await new Promise<void>((resolve) => gates.push(resolve))
        return createSkillManager({
          sources: [new InMemorySkillSource({ skills: [] })],
          gate: async () => undefined,
        })
      },
    })
    servers.push(server)
    const listen = {
      ...modernRequest('subscriptions/listen', { notifications: { resourcesListChanged: true } }),
    }
    const rounds = [
      modernRequest('tools/call', { name: 'hold', arguments: {} }),
      listen,
      modernRequest('tools/call', { name: 'hold', arguments: {} }),
      listen,
    ]
    for (const [i, init] of rounds.entries()) {
      const controller = new AbortController()
      const pending = fetch(server.url, { ...init, signal: controller.signal }).catch(() => 'gone')
      await expect.poll(() => made).toBe(i + 1)
      controller.abort()
      expect(await pending).toBe('gone')
      // Let the server's side of the connection see the close before the manager is made.
      for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r))
      gates.shift()?.()
      await expect.poll(() => disposed).toBe(i + 1)
    }
    expect(started).toBe(0)
    // The one slot is free: a request is served.
    const served = fetch(server.url, modernRequest('tools/list'))
    await expect.poll(() => made).toBe(rounds.length + 1)
    gates.shift()?.()
    expect((await served).status).toBe(200)
  })
})
