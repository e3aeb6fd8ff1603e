import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpHttpServer } from '../../src/adapters/mcp/index.js'
import { serveEchoHttp } from '../helpers/echo-http-server.js'
import { connectSdk2 } from '../helpers/sdk2-client.js'

// 2026-07-28 has no initialize: a request declares its client capabilities
// in `_meta["io.modelcontextprotocol/clientCapabilities"]`, a required key
// (client-capabilities.ts). Missing or malformed: -32602, over HTTP with
// status 400, before anything runs, never echoing what was sent. Over real
// HTTP: raw fetch for what no client we did not write would send, the SDK
// 2.x client for what one does.

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'
const CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities'
const MARKER = 'echo-me-not-7f3a'
let server: McpHttpServer
let counts: { calls: number }

beforeAll(async () => {
  const echo = await serveEchoHttp()
  server = echo.server
  counts = echo.counts
})
afterAll(async () => {
  await server?.close()
})

// biome-ignore lint/suspicious/noExplicitAny: read as JSON, asserted field by field
type Reply = Record<string, any>

/** A stateless `tools/call` of `echo` whose `_meta` is `meta` (raw JSON text when a string). */
async function callEcho(
  meta: Record<string, unknown> | string,
  version = '2026-07-28',
): Promise<{
  status: number
  body: Reply
  text: string
}> {
  const metaText = typeof meta === 'string' ? meta : JSON.stringify(meta)
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    },
    body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":${metaText}}}`,
  })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text) as Reply, text }
}

/** Nested `{ a: { a: … } }`, `depth` objects deep. */
function deep(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { leaf: MARKER }
  for (let i = 1; i < depth; i++) node = { a: node }
  return node
}

describe('2026-07-28 client capabilities per request', () => {
  it('served with what real clients declare: {} or a full declaration', async () => {
    const full = {
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
      experimental: { x: {} },
      extensions: { 'io.modelcontextprotocol/skills': {} },
    }
    for (const caps of [{}, full]) {
      const before = counts.calls
      const { status, body } = await callEcho({ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: caps })
      expect(status).toBe(200)
      expect(body.result.content).toEqual([{ type: 'text', text: 'ok' }])
      expect(counts.calls).toBe(before + 1)
    }
  })

  it('missing, not an object, malformed, too large or too deep: 400, -32602, nothing run, nothing echoed', async () => {
    const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}${MARKER}`, {}]))
    const cases: Array<[Record<string, unknown> | string, string]> = [
      [{ [VERSION_KEY]: '2026-07-28' }, 'must state its client capabilities'],
      // Ways around "present": a differently cased key, a key reached through __proto__.
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY.toUpperCase()]: {} }, 'must state'],
      [
        `{"${VERSION_KEY}":"2026-07-28","__proto__":{"${CAPS_KEY}":{}}}`,
        'must state its client capabilities',
      ],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: MARKER }, 'not a capabilities object'],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: [MARKER] }, 'not a capabilities object'],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: null }, 'not a capabilities object'],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: { sampling: MARKER } }, 'not a capabilities'],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: { roots: [true] } }, 'not a capabilities'],
      [
        { [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: { experimental: { x: MARKER.repeat(2000) } } },
        'too large',
      ],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: { experimental: deep(40) } }, 'too large'],
      [{ [VERSION_KEY]: '2026-07-28', [CAPS_KEY]: { experimental: wide } }, 'too large'],
    ]
    const before = counts.calls
    for (const [meta, says] of cases) {
      const { status, body, text } = await callEcho(meta)
      expect(status).toBe(400)
      expect(body.id).toBe(3)
      expect(body.error.code).toBe(-32602)
      expect(body.error.message).toContain(says)
      expect(text).not.toContain(MARKER)
    }
    expect(counts.calls).toBe(before)
  })

  it('a revision not served is answered -32022 first, even without capabilities', async () => {
    const { body } = await callEcho({ [VERSION_KEY]: '2099-01-01' }, '2099-01-01')
    expect(body.error.code).toBe(-32022)
  })

  it('on a 2025 session: a request stating 2026-07-28 without capabilities is -32602 in band; a 2025 request is untouched', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(server.url))
    try {
      const legacy = await client.callTool({ name: 'echo', arguments: {} })
      expect(legacy.content).toEqual([{ type: 'text', text: 'ok' }])
      expect(legacy).not.toHaveProperty('resultType')
      const before = counts.calls
      await expect(
        client.request(
          {
            method: 'tools/call',
            params: { name: 'echo', arguments: {}, _meta: { [VERSION_KEY]: '2026-07-28' } },
          },
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({ code: -32602 })
      expect(counts.calls).toBe(before)
    } finally {
      await client.close()
    }
  })

  it('the SDK 2.x client pinned to 2026-07-28 declares them and is served', async () => {
    const client = await connectSdk2({ http: server.url }, '2026-07-28', 'caps')
    try {
      const result = await client.callTool({ name: 'echo', arguments: {} })
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }])
    } finally {
      await client.close()
    }
  })
})
