import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpHttpServer } from '../../src/adapters/mcp/index.js'
import { Tool } from '../../src/common/index.js'
import { serveEchoHttp } from '../helpers/echo-http-server.js'
import { modernRequest } from '../helpers/mcp-http-requests.js'
import { connectSdk2 } from '../helpers/sdk2-client.js'

// 2026-07-28 over HTTP: a request's progress and the log records its _meta
// level admits go out on its POST's own response, an SSE stream carrying
// them in order and then the result (stateless-answer.ts). A request that
// makes none is answered as plain JSON. Over real HTTP: raw fetch to read
// the bytes, the SDK 2.x client pinned to 2026-07-28 to see a client take them.

let server: McpHttpServer
const counts = { started: 0, aborted: 0 }

beforeAll(async () => {
  const hold = new Tool({
    name: 'hold',
    description: 'Waits until its call is aborted.',
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
  server = (await serveEchoHttp([hold])).server
})
afterAll(async () => {
  await server?.close()
})

// biome-ignore lint/suspicious/noExplicitAny: read as JSON, asserted field by field
type Message = Record<string, any>

/** A stateless `tools/call` of `name` with `meta` beside the envelope, accepting `accept`. */
function call(
  name: string,
  meta: Record<string, unknown>,
  accept?: string,
  signal?: AbortSignal,
): Promise<Response> {
  const params = { name, arguments: {}, _meta: meta }
  return fetch(server.url, modernRequest('tools/call', params, { id: 11, accept, signal }))
}

/** The events of an SSE body: each one's fields, `data` parsed. */
function events(text: string): Array<{ retry?: string; event?: string; data: Message }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const fields = Object.fromEntries(
        block.split('\n').map((line) => {
          const at = line.indexOf(': ')
          return [line.slice(0, at), line.slice(at + 2)]
        }),
      )
      return { ...fields, data: JSON.parse(fields.data ?? 'null') as Message }
    })
}

describe('the SSE answer of a 2026-07-28 POST', () => {
  it('carries the progress and admitted log records, in order, then the result, then ends', async () => {
    const res = await call('list_skills', {
      progressToken: 'p-1',
      'io.modelcontextprotocol/logLevel': 'debug',
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const got = events(await res.text())
    // The first event says how long to wait before reconnecting, as a 2025 stream's priming event does.
    expect(got[0]?.retry).toBe('1000')
    expect(got.every((e) => e.event === 'message')).toBe(true)
    expect(got.every((e) => !('id' in e))).toBe(true)
    const methods = got.map((e) => e.data.method ?? 'result')
    expect(methods.at(-1)).toBe('result')
    expect(methods.filter((m) => m === 'result')).toHaveLength(1)
    const progress = got.filter((e) => e.data.method === 'notifications/progress')
    expect(progress.map((e) => e.data.params.message)).toEqual(['started', 'finished'])
    expect(progress.every((e) => e.data.params.progressToken === 'p-1')).toBe(true)
    expect(progress.map((e) => e.data.params.progress)).toEqual([0, 1])
    const logs = got.filter((e) => e.data.method === 'notifications/message')
    expect(logs.length).toBeGreaterThan(0)
    expect(logs[0]?.data.params).toMatchObject({ level: 'debug', logger: 'skillhost.gate' })
    const last = got.at(-1)?.data as Message
    expect(last).toMatchObject({ jsonrpc: '2.0', id: 11 })
    expect(last.result.resultType).toBe('complete')
  })

  it('a request that makes no notification is plain JSON; a level that admits none opens no stream', async () => {
    for (const meta of [{}, { 'io.modelcontextprotocol/logLevel': 'error' }]) {
      const res = await call('list_skills', meta)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(((await res.json()) as Message).result.resultType).toBe('complete')
    }
  })

  it('a client that accepts only JSON gets JSON (notifications dropped); one that accepts only SSE gets a stream', async () => {
    const json = await call('echo', { progressToken: 'p-2' }, 'application/json')
    expect(json.headers.get('content-type')).toBe('application/json')
    expect(((await json.json()) as Message).result.content).toEqual([{ type: 'text', text: 'ok' }])
    const sse = await call('echo', {}, 'text/event-stream')
    expect(sse.headers.get('content-type')).toBe('text/event-stream')
    const got = events(await sse.text())
    expect(got).toHaveLength(1)
    expect(got[0]?.retry).toBe('1000')
    expect(got[0]?.data.result.content).toEqual([{ type: 'text', text: 'ok' }])
  })

  it('a client that goes away mid-stream aborts its call, three times in a row', async () => {
    for (let round = 1; round <= 3; round++) {
      const controller = new AbortController()
      const res = await call('hold', { progressToken: `h-${round}` }, undefined, controller.signal)
      // The stream is open (its first progress went out) while the call still runs.
      expect(res.headers.get('content-type')).toBe('text/event-stream')
      await expect.poll(() => counts.started).toBe(round)
      controller.abort()
      await expect.poll(() => counts.aborted).toBe(round)
    }
    await expect.poll(() => server.sessionCount()).toBe(0)
  })

  it('the SDK 2.x client pinned to 2026-07-28 receives the progress and log records on the stream', async () => {
    const client = await connectSdk2({ http: server.url }, '2026-07-28', 'sse')
    const levels: string[] = []
    client.setNotificationHandler('notifications/message', (n) => {
      levels.push(n.params.level)
    })
    try {
      const progress: string[] = []
      const result = await client.callTool(
        {
          name: 'list_skills',
          arguments: {},
          _meta: { 'io.modelcontextprotocol/logLevel': 'debug' },
        },
        { onprogress: (p) => progress.push(p.message ?? '') },
      )
      expect(result.isError).toBeFalsy()
      expect(progress).toEqual(['started', 'finished'])
      expect(levels).toContain('debug')
    } finally {
      await client.close()
    }
  })
})
