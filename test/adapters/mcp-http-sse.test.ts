import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { SSE_EVENT_LIMITS } from '../../src/adapters/mcp/sse-event-store.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

const VERSION = '2025-11-25'
let server: McpHttpServer | undefined
const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await server?.close()
  server = undefined
})

/** A skill whose one tool waits until `release()` or its call is aborted. */
function waiter() {
  let release: () => void = () => undefined
  const state = { aborted: 0, started: 0 }
  const wait = new Tool({
    name: 'wait',
    description: 'Waits to be released.',
    inputSchema: { type: 'object', properties: {} },
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        state.started += 1
        release = () => resolve('released')
        ctx.abortSignal.addEventListener('abort', () => {
          state.aborted += 1
          resolve('stopped')
        })
      }),
  })
  const source = new InMemorySkillSource({
    skills: [{ name: 'waiter', description: 'Waits.', body: '# Waiter', tools: [wait] }],
  })
  return { source, state, release: () => release() }
}

interface SseEvent {
  readonly id?: string
  readonly retry?: string
  readonly data: string
}

/** Reads SSE events off `body` until `enough` says so or the stream ends; `ended` tells which. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  enough: (events: SseEvent[]) => boolean,
): Promise<{
  events: SseEvent[]
  raw: string
  ended: boolean
  reader: ReadableStreamDefaultReader
}> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let raw = ''
  const events: SseEvent[] = []
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return { events, raw, ended: true, reader }
    raw += decoder.decode(value, { stream: true })
    events.length = 0
    for (const block of raw.split('\n\n').slice(0, -1)) {
      const lines = block.split('\n').filter((l) => !l.startsWith(':'))
      if (lines.length === 0) continue
      const field = (name: string) =>
        lines
          .find((l) => l.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trimStart()
      events.push({ id: field('id'), retry: field('retry'), data: field('data') ?? '' })
    }
    if (enough(events)) return { events, raw, ended: false, reader }
  }
}

/** A raw Streamable HTTP client: initialize, then POSTs and GETs with its session id. */
async function rawSession(url: URL) {
  const post = (body: unknown, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION }),
      },
      body: JSON.stringify(body),
    })
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  })
  const sessionId = init.headers.get('mcp-session-id') as string
  const initEvents = await readEvents(init.body as ReadableStream<Uint8Array>, () => false)
  expect(
    (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).status,
  ).toBe(202)
  const get = (lastEventId: string) =>
    fetch(url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': VERSION,
        'last-event-id': lastEventId,
      },
    })
  return { sessionId, initEvents, post: (body: unknown) => post(body, sessionId), get }
}

async function serveWaiter() {
  const w = waiter()
  server = await serveMcpHttp({
    createManager: () => createSkillManager({ sources: [w.source], gate: async () => undefined }),
  })
  const raw = await rawSession(server.url)
  const load = await raw.post({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'load_skill', arguments: { skill: 'waiter' } },
  })
  await readEvents(load.body as ReadableStream<Uint8Array>, () => false)
  return { ...w, raw }
}

describe('SSE priming, retry and resumption on serve --http (issue 36 item 5)', () => {
  it('every POST stream starts with a priming event: an id, retry: and empty data', async () => {
    const { raw } = await serveWaiter()
    const [priming, answer] = raw.initEvents.events
    expect(
      raw.initEvents.raw.startsWith(
        `id: ${priming?.id}\nretry: ${SSE_EVENT_LIMITS.retryMs}\ndata: \n\n`,
      ),
    ).toBe(true)
    expect(priming?.data).toBe('')
    expect(JSON.parse(answer?.data ?? '{}').result.protocolVersion).toBe(VERSION)
    const listed = await raw.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const { events, raw: text } = await readEvents(
      listed.body as ReadableStream<Uint8Array>,
      () => false,
    )
    expect(text).toMatch(/^id: \S+\nretry: 1000\ndata: \n\n/)
    expect(events[0]?.id).toBeTruthy()
    expect(events[1]?.id).toBeTruthy()
    expect(JSON.parse(events[1]?.data ?? '{}').id).toBe(2)
  })

  it('a client that lost a call stream resumes it with Last-Event-ID and gets the missed result', async () => {
    const { raw, state, release } = await serveWaiter()
    const call = await raw.post({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'wait', arguments: {} },
    })
    const first = await readEvents(call.body as ReadableStream<Uint8Array>, (e) => e.length >= 1)
    const primingId = first.events[0]?.id as string
    await expect.poll(() => state.started).toBe(1)
    // The client drops its stream; the result is made while it is away.
    await first.reader.cancel()
    release()
    let resumed: Awaited<ReturnType<typeof readEvents>> | undefined
    for (
      let attempt = 0;
      attempt < 50 && !resumed?.events.some((e) => e.data.includes('released'));
      attempt++
    ) {
      const res = await raw.get(primingId)
      expect(res.status).toBe(200)
      resumed = await readEvents(res.body as ReadableStream<Uint8Array>, (e) =>
        e.some((x) => x.data !== ''),
      )
      await resumed.reader.cancel()
    }
    const result = resumed?.events.find((e) => e.data.includes('released'))
    expect(JSON.parse(result?.data ?? '{}').id).toBe(3)
    expect(result?.id).toBeTruthy()
    // An id this session never gave is answered 400, cleanly.
    const foreign = await raw.get('AAAAAAAA.0.0')
    expect(foreign.status).toBe(400)
    expect(((await foreign.json()) as { error: { code: number } }).error.code).toBe(-32000)
  })

  it('a cancelled call: its stream ends, the tool is aborted, a resume of it opens nothing', async () => {
    const { raw, state } = await serveWaiter()
    const call = await raw.post({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'wait', arguments: {} },
    })
    const body = call.body as ReadableStream<Uint8Array>
    const first = await readEvents(body, (e) => e.length >= 1)
    await expect.poll(() => state.started).toBe(1)
    const cancel = await raw.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4, reason: 'user' },
    })
    expect(cancel.status).toBe(202)
    // The rest of the stream: it ends, with no result on it.
    const rest: string[] = []
    for (;;) {
      const { value, done } = await first.reader.read()
      if (done) break
      rest.push(new TextDecoder().decode(value))
    }
    expect(rest.join('')).not.toContain('"result"')
    await expect.poll(() => state.aborted).toBe(1)
    const resume = await raw.get(first.events[0]?.id as string)
    expect(resume.status).toBe(400)
  })

  it('the SDK client: a cancelled call stream ends, the session goes on', async () => {
    const w = waiter()
    server = await serveMcpHttp({
      createManager: () => createSkillManager({ sources: [w.source], gate: async () => undefined }),
    })
    let callStreams = 0
    let callStreamsEnded = 0
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init)
      const isCall = init?.method === 'POST' && String(init.body).includes('"name":"wait"')
      if (!isCall || !res.body) return res
      callStreams += 1
      const watched = res.body.pipeThrough(
        new TransformStream({
          flush: () => {
            callStreamsEnded += 1
          },
        }),
      )
      return new Response(watched, { status: res.status, headers: res.headers })
    }
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(server.url, { fetch: counting }))
    clients.push(client)
    await client.callTool({ name: 'load_skill', arguments: { skill: 'waiter' } })
    const controller = new AbortController()
    const call = client
      .callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal })
      .catch((e: unknown) => e)
    await expect.poll(() => w.state.started).toBe(1)
    controller.abort()
    await call
    await expect.poll(() => callStreamsEnded).toBe(1)
    expect(callStreams).toBe(1)
    expect(w.state.aborted).toBe(1)
    const listed = await client.callTool({ name: 'list_loaded_skills', arguments: {} })
    expect(JSON.stringify(listed)).toContain('waiter')
  })
})
