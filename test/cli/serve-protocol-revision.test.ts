import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { EXAMPLES, serveArgs, serveHttp, stopServe } from '../helpers/interop.js'
import { ROOT, type ServeProcess } from '../helpers/spawn-serve.js'

// Issue 36 item 4: `skillhost serve` speaks 2026-07-28 (server/discover, no
// handshake, no session) beside 2025-11-25, and a 2025 client (the SDK 1.x
// this project depends on) sees no change. On the wire, with raw fetch, so
// what 2026-07-28 requires of a result is checked as bytes, not through a
// client that might fill it in.

const MODERN = '2026-07-28'
const META_KEY = 'io.modelcontextprotocol/protocolVersion'
// Required beside the revision on every 2026-07-28 request (client-capabilities.ts).
const CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities'
let http: { served: ServeProcess; url: URL }

beforeAll(async () => {
  http = await serveHttp([EXAMPLES])
  // Discovery and the first session on a loaded machine can outlast the default hook timeout.
}, 120_000)
afterAll(async () => {
  if (http) await stopServe(http.served)
})

// A raw JSON-RPC reply: its shape is what the test checks.
// biome-ignore lint/suspicious/noExplicitAny: read as JSON, asserted field by field
type Reply = Record<string, any>

/** One 2026-07-28 request over HTTP: no session, the revision in `_meta` and the header. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  version = MODERN,
): Promise<{ status: number; session: string | null; body: Reply }> {
  const res = await fetch(http.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      // What a 2026-07-28 client sends beside the body (request-headers.ts checks them).
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: { ...params, _meta: { [META_KEY]: version, [CAPS_KEY]: {} } },
    }),
  })
  return {
    status: res.status,
    session: res.headers.get('mcp-session-id'),
    body: (await res.json()) as Reply,
  }
}

describe('2026-07-28 over HTTP', () => {
  it('answers server/discover with the revisions served and the capabilities', async () => {
    const { status, session, body } = await modern('server/discover')
    expect(status).toBe(200)
    expect(session).toBeNull()
    expect(body.id).toBe(7)
    expect(body.result).toMatchObject({
      supportedVersions: expect.arrayContaining([MODERN, '2025-11-25', '2025-06-18']),
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        extensions: { 'io.modelcontextprotocol/skills': {} },
      },
      resultType: 'complete',
      ttlMs: expect.any(Number),
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'skillhost' } },
    })
    expect(body.result.supportedVersions[0]).toBe(MODERN)
  })

  it('serves a request without initialize, its result carrying resultType and cache fields', async () => {
    const { body } = await modern('tools/list')
    expect(body.result.tools.map((t: { name: string }) => t.name)).toContain('load_skill')
    expect(body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' })
    const skills = await modern('skills/list')
    expect(skills.body.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000 })
    expect(skills.body.result.skills.length).toBe(5)
  })

  it('keeps nothing between requests: a skill loaded by one is not loaded for the next', async () => {
    const load = await modern('tools/call', {
      name: 'load_skill',
      arguments: { skill: 'json-tools' },
    })
    expect(load.body.result.isError).toBeFalsy()
    expect(load.body.result.resultType).toBe('complete')
    expect(load.session).toBeNull()
    const loaded = await modern('tools/call', { name: 'list_loaded_skills', arguments: {} })
    expect(JSON.stringify(loaded.body.result.content)).not.toContain('json-tools')
  })

  it('answers a revision it does not speak with -32022 and the ones it does', async () => {
    for (const version of ['2099-01-01', '2026-07-29']) {
      const { body } = await modern('tools/list', {}, version)
      expect(body.error).toMatchObject({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: expect.arrayContaining([MODERN]), requested: version },
      })
    }
  })

  it('opens a session for an initialize whatever its envelope, and takes a 2026 notification with 202', async () => {
    const init = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
          _meta: { [META_KEY]: MODERN },
        },
      }),
    })
    expect(init.status).toBe(200)
    const session = init.headers.get('mcp-session-id')
    expect(session).toMatch(/^[0-9a-f-]{36}$/)
    await init.body?.cancel()
    const closed = await fetch(http.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session as string },
    })
    expect(closed.status).toBe(200)
    const note = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': MODERN },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 3 },
      }),
    })
    expect(note.status).toBe(202)
  })

  it('refuses a request without session or revision as before (initialize first)', async () => {
    const res = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(res.status).toBe(400)
  })
})

describe('a 2025 client (SDK 1.x) sees no change', () => {
  async function check(client: Client): Promise<void> {
    expect(client.getServerVersion()?.name).toBe('skillhost')
    const tools = await client.listTools()
    expect(tools.tools.map((t) => t.name)).toContain('load_skill')
    // Results stay 2025-shaped: 2026-07-28's fields only answer requests that state it.
    expect(tools).not.toHaveProperty('resultType')
    // server/discover is answered in a 2025 session too (the same revisions).
    const discover = await client.request(
      { method: 'server/discover', params: {} },
      z.object({ supportedVersions: z.array(z.string()) }).passthrough(),
    )
    expect(discover.supportedVersions).toEqual(expect.arrayContaining([MODERN, '2025-11-25']))
  }

  it('over HTTP: negotiates 2025-11-25 in a session', async () => {
    const transport = new StreamableHTTPClientTransport(http.url)
    const client = new Client({ name: 'sdk1', version: '1.0.0' })
    await client.connect(transport)
    try {
      expect(transport.protocolVersion).toBe('2025-11-25')
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      await check(client)
    } finally {
      await client.close()
    }
  })

  it('over stdio: negotiates 2025-11-25', { timeout: 120_000 }, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/cli/main.js', 'serve', ...serveArgs([EXAMPLES])],
      cwd: ROOT,
      env: getDefaultEnvironment(),
      stderr: 'ignore',
    })
    const client = new Client({ name: 'sdk1', version: '1.0.0' })
    // The SDK keeps a handler set before connect: it sees the initialize answer.
    const versions: unknown[] = []
    transport.onmessage = (message) => {
      if ('result' in message && 'protocolVersion' in message.result)
        versions.push(message.result.protocolVersion)
    }
    await client.connect(transport)
    try {
      expect(versions).toEqual(['2025-11-25'])
      await check(client)
    } finally {
      await client.close()
    }
  })
})
