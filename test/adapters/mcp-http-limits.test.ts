import { type IncomingMessage, request } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type HttpLimit,
  type McpHttpServer,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { initializeBody } from '../helpers/mcp-http-requests.js'

const servers: McpHttpServer[] = []
const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map(({ client }) => client.close()))
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(
  options: Partial<ServeMcpHttpOptions> = {},
): Promise<{ server: McpHttpServer; limits: HttpLimit[] }> {
  const limits: HttpLimit[] = []
  const server = await serveMcpHttp({
    host: '127.0.0.1',
    createManager: () =>
      createSkillManager({
        sources: [new InMemorySkillSource({ skills: [] })],
        gate: async () => undefined,
      }),
    onLimit: (event) => limits.push(event.limit),
    ...options,
  })
  servers.push(server)
  return { server, limits }
}

async function connect(url: URL, token?: string): Promise<StreamableHTTPClientTransport> {
  const client = new Client({ name: 'limits', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(url, {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  })
  await client.connect(transport)
  clients.push({ client, transport })
  return transport
}

const initialize = initializeBody('raw')

/**
 * A raw POST whose body the test writes piece by piece: `send` writes,
 * `end` finishes, `response` settles with the server's answer (or the
 * connection's end without one).
 */
function rawPost(url: URL, headers: Record<string, string | number> = {}) {
  const req = request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
  })
  const response = new Promise<{
    status: number
    headers: IncomingMessage['headers']
    body: string
  }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (piece: string) => {
        body += piece
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
  })
  req.flushHeaders()
  return {
    send: (text: string) => new Promise<void>((resolve) => req.write(text, () => resolve())),
    end: (text?: string) => req.end(text),
    response,
    destroy: () => req.destroy(),
  }
}

describe('serveMcpHttp limits (bounded sessions)', () => {
  it('opens sessions up to maxSessions; the next initialize gets 503 with Retry-After; a closed one frees room', async () => {
    const { server, limits } = await serve({ maxSessions: 3 })
    const open = [await connect(server.url), await connect(server.url), await connect(server.url)]
    expect(server.sessionCount()).toBe(3)
    // The official client is refused...
    await expect(connect(server.url)).rejects.toThrow(/503|Too many open sessions/)
    // ...and the raw answer says when to come back.
    const refused = rawPost(server.url)
    refused.end(initialize)
    const answer = await refused.response
    expect(answer.status).toBe(503)
    expect(answer.headers['retry-after']).toBe('30')
    expect(answer.body).toContain('Too many open sessions (at most 3)')
    expect(server.sessionCount()).toBe(3)
    expect(limits).toEqual(['sessions', 'sessions'])
    await open[0]!.terminateSession()
    expect(server.sessionCount()).toBe(2)
    await connect(server.url)
    expect(server.sessionCount()).toBe(3)
  })

  it('caps sessions per bearer token below the total', async () => {
    const { server, limits } = await serve({
      token: 'tok',
      maxSessions: 10,
      maxSessionsPerToken: 2,
    })
    await connect(server.url, 'tok')
    await connect(server.url, 'tok')
    const refused = rawPost(server.url, { authorization: 'Bearer tok' })
    refused.end(initialize)
    const answer = await refused.response
    expect(answer.status).toBe(503)
    expect(answer.body).toContain('for this credential (at most 2)')
    expect(limits).toEqual(['sessionsPerToken'])
    expect(server.sessionCount()).toBe(2)
  })

  it('refuses a body over maxBodyBytes with 413, declared or streamed', async () => {
    const { server, limits } = await serve({ maxBodyBytes: 1024 })
    const declared = rawPost(server.url, { 'content-length': 5000 })
    const streamed = rawPost(server.url) // chunked: no length to judge by
    declared.send('{"jsonrpc":')
    void streamed.send(`{"x":"${'a'.repeat(4000)}`).catch(() => undefined)
    expect((await declared.response).status).toBe(413)
    const second = await streamed.response
    expect(second.status).toBe(413)
    expect(second.headers.connection).toBe('close')
    expect(limits).toEqual(['bodyBytes', 'bodyBytes'])
    // The server still serves.
    await connect(server.url)
    expect(server.sessionCount()).toBe(1)
  })

  it('cuts off a body that trickles past bodyTimeoutMs with 408 and closes the connection', async () => {
    const { server, limits } = await serve({ bodyTimeoutMs: 200 })
    const slow = rawPost(server.url, { 'content-length': initialize.length })
    // Headers, then a few bytes, then nothing: the deadline, not the client, ends it.
    await slow.send(initialize.slice(0, 10))
    await slow.send(initialize.slice(10, 20))
    const answer = await slow.response
    expect(answer.status).toBe(408)
    expect(answer.headers.connection).toBe('close')
    expect(answer.body).toContain('not received within 200 ms')
    expect(limits).toEqual(['bodyTimeout'])
    expect(server.sessionCount()).toBe(0)
    // A body that arrives whole is served.
    await connect(server.url)
    expect(server.sessionCount()).toBe(1)
  })

  it('refuses a body that would pass maxBodyBytesInFlight with 503 while another is being read', async () => {
    const { server, limits } = await serve({ maxBodyBytes: 800, maxBodyBytesInFlight: 1000 })
    const holding = rawPost(server.url, { 'content-length': initialize.length + 600 })
    const padded = `${initialize}${' '.repeat(600)}`
    expect(padded.length).toBe(initialize.length + 600)
    await holding.send(padded.slice(0, 700))
    // The first body's 700 bytes reach the server in their own time: send the
    // second until it is refused (each try is answered, so this never waits blind).
    let refused: { status: number; headers: IncomingMessage['headers'] } | undefined
    for (let attempt = 0; attempt < 100 && !refused; attempt++) {
      const other = rawPost(server.url)
      other.end(`{"y":"${'q'.repeat(400)}"}`)
      const answer = await other.response
      if (answer.status === 503) refused = answer
    }
    expect(refused?.headers['retry-after']).toBe('1')
    expect(limits).toContain('bodyBytesInFlight')
    // The held body completes and is served.
    holding.end(padded.slice(700))
    const done = await holding.response
    expect(done.status).toBe(200)
    expect(server.sessionCount()).toBe(1)
  })
})

describe('kept-alive connections', () => {
  it('stay open longer than a balancer or the SDK client keeps one idle, and say so', async () => {
    const { server } = await serve()
    const { Agent } = await import('node:http')
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    // Two requests over one agent with one socket: the second reuses the first's connection.
    const ask = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(server.url, {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        })
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => resolve(res))
        })
        req.on('error', reject)
        req.end(JSON.stringify(initialize))
      })
    try {
      const first = await ask()
      // The server's idle limit, as every client reads it (undici keeps a socket for this less 2 s).
      expect(first.headers['keep-alive']).toBe('timeout=65')
      const sockets = new Set([first.socket])
      const second = await ask()
      sockets.add(second.socket)
      expect(second.headers['keep-alive']).toBe('timeout=65')
      expect(sockets.size).toBe(1)
    } finally {
      agent.destroy()
    }
  })
})
