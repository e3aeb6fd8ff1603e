import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpHttpServer } from '../../src/adapters/mcp/index.js'
import { serveEchoHttp } from '../helpers/echo-http-server.js'
import { MODERN_ENVELOPE } from '../helpers/mcp-http-requests.js'
import { connectSdk2 } from '../helpers/sdk2-client.js'

// 2026-07-28 over HTTP: the standard headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) must be present and agree with the JSON-RPC body,
// else 400 with -32020 (request-headers.ts). Over real HTTP, raw fetch for
// what a client we did not write would not send, the SDK 2.x client for
// what one does send; a 2025 client's headers are not looked at.

const MODERN = '2026-07-28'
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

/** One POST: `headers` beside the JSON content headers, the body as given. */
async function post(
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Reply | undefined; text: string }> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? (JSON.parse(text) as Reply) : undefined, text }
}

/** A 2026-07-28 `tools/call` of `name`, with the headers given (none added). */
function callEcho(headers: Record<string, string>, name = 'echo') {
  return post(headers, {
    id: 3,
    method: 'tools/call',
    params: { name, arguments: {}, _meta: MODERN_ENVELOPE },
  })
}

const GOOD = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }

function expectMismatch(reply: { status: number; body: Reply | undefined }, header: string) {
  expect(reply.status).toBe(400)
  expect(reply.body?.error?.code).toBe(-32020)
  expect(reply.body?.error?.data?.header).toBe(header)
}

describe('2026-07-28 standard request headers over HTTP', () => {
  it('serves a request whose headers agree with its body, plain or base64-encoded', async () => {
    const before = counts.calls
    const plain = await callEcho(GOOD)
    expect(plain.status).toBe(200)
    expect(plain.body?.result?.content?.[0]?.text).toBe('ok')
    // OWS around the value is not part of it; a sentinel value is decoded.
    const spaced = await callEcho({ ...GOOD, 'mcp-name': ' \techo\t ' })
    expect(spaced.status).toBe(200)
    const encoded = await callEcho({ ...GOOD, 'mcp-name': '=?base64?ZWNobw==?=' })
    expect(encoded.status).toBe(200)
    expect(counts.calls - before).toBe(3)
  })

  it('passes a non-ASCII name sent base64-encoded (the tool is then unknown, in-band)', async () => {
    const name = 'écho-名'
    const b64 = Buffer.from(name, 'utf8').toString('base64')
    const reply = await callEcho({ ...GOOD, 'mcp-name': `=?base64?${b64}?=` }, name)
    expect(reply.status).toBe(200)
    expect(reply.body?.error?.code ?? reply.body?.result?.isError).toBeTruthy()
    expect(reply.body?.error?.code).not.toBe(-32020)
  })

  it('refuses Mcp-Method naming another method, and runs nothing', async () => {
    const before = counts.calls
    // (OWS around a value is stripped by the HTTP layers, so 'tools/call ' is 'tools/call'.)
    for (const method of ['tools/list', 'TOOLS/CALL', 'tools/callx', 'tools/call, tools/call']) {
      expectMismatch(await callEcho({ ...GOOD, 'mcp-method': method }), 'Mcp-Method')
    }
    expect(counts.calls).toBe(before)
  })

  it('refuses a missing MCP-Protocol-Version, Mcp-Method or Mcp-Name, in that order', async () => {
    expectMismatch(await callEcho({}), 'MCP-Protocol-Version')
    expectMismatch(await callEcho({ 'mcp-method': 'tools/call' }), 'MCP-Protocol-Version')
    expectMismatch(await callEcho({ 'mcp-protocol-version': MODERN }), 'Mcp-Method')
    const { 'mcp-name': _, ...noName } = GOOD
    expectMismatch(await callEcho(noName), 'Mcp-Name')
    // A method without a name to mirror needs no Mcp-Name.
    const list = await post(
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      { id: 4, method: 'tools/list', params: { _meta: MODERN_ENVELOPE } },
    )
    expect(list.status).toBe(200)
    expect(list.body?.result?.tools).toBeDefined()
  })

  it('refuses an MCP-Protocol-Version header that disagrees with the envelope', async () => {
    expectMismatch(
      await callEcho({ ...GOOD, 'mcp-protocol-version': '2025-11-25' }),
      'MCP-Protocol-Version',
    )
  })

  it('refuses hostile Mcp-Name values and never echoes them', async () => {
    const before = counts.calls
    const hostile: [string, string][] = [
      ['other', 'mismatch'],
      ['ECHO', 'mismatch'],
      [`echo${'x'.repeat(8000)}`, 'mismatch'],
      ['=?base64?ZWNobw?=', 'invalid encoding'], // unpadded: not canonical
      ['=?base64?!!!!?=', 'invalid encoding'],
      ['=?base64?/w==?=', 'invalid encoding'], // 0xFF: not UTF-8
      ['=?base64?b3RoZXI=?=', 'mismatch'], // "other"
      ['éch', 'invalid encoding'], // raw latin-1 byte: must be base64-wrapped
    ]
    for (const [value, problem] of hostile) {
      const reply = await callEcho({ ...GOOD, 'mcp-name': value })
      expectMismatch(reply, 'Mcp-Name')
      expect(reply.body?.error?.data?.problem).toBe(problem)
      expect(reply.text).not.toContain(value.slice(0, 12))
    }
    expect(counts.calls).toBe(before)
  })

  it('refuses a header with CR/LF before it reaches the server (Node itself)', async () => {
    await expect(callEcho({ ...GOOD, 'mcp-name': 'echo\r\nx-injected: 1' })).rejects.toThrow()
  })

  it('checks a notification for disagreement only, and a request of an unserved revision is -32022', async () => {
    const note = await post(
      { 'mcp-protocol-version': MODERN },
      { method: 'notifications/cancelled', params: { requestId: 1, _meta: MODERN_ENVELOPE } },
    )
    expect(note.status).toBe(202)
    const wrong = await post(
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/progress' },
      { method: 'notifications/cancelled', params: { requestId: 1, _meta: MODERN_ENVELOPE } },
    )
    expectMismatch(wrong, 'Mcp-Method')
    const future = await post(
      { 'mcp-protocol-version': '2099-01-01' },
      {
        id: 5,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
    )
    expect(future.body?.error?.code).toBe(-32022)
  })

  it('leaves a 2025-11-25 client alone, whatever Mcp-Method or Mcp-Name it sends', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' })
    const odd = { 'mcp-method': 'nonsense', 'mcp-name': '=?base64?!!?=' }
    await client.connect(
      new StreamableHTTPClientTransport(server.url, { requestInit: { headers: odd } }),
    )
    try {
      const result = await client.callTool({ name: 'echo', arguments: {} })
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }])
    } finally {
      await client.close()
    }
  })

  it('the SDK 2.x client, pinned to 2026-07-28, sends headers that pass', async () => {
    const client = await connectSdk2({ http: server.url }, '2026-07-28', 'sdk2')
    try {
      const before = counts.calls
      const result = await client.callTool({ name: 'echo', arguments: {} })
      expect(result.content).toEqual([{ type: 'text', text: 'ok' }])
      expect(counts.calls - before).toBe(1)
    } finally {
      await client.close()
    }
  })
})
