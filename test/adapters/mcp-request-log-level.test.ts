import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { MODERN_ENVELOPE } from '../helpers/mcp-http-requests.js'

// 2026-07-28 replaces logging/setLevel by a level in each request's _meta,
// and the server MUST NOT send notifications/message for a request without
// one (mcp-logging.ts). Over a real HTTP session, whose session level is
// `debug`, so every record a call makes would go out to a 2025 request.

const MODERN = MODERN_ENVELOPE
let server: McpHttpServer
let client: Client
const levels: string[] = []

beforeAll(async () => {
  server = await serveMcpHttp({
    host: '127.0.0.1',
    createManager: async () =>
      createSkillManager({
        sources: [new InMemorySkillSource({ skills: [] })],
        gate: async () => undefined,
      }),
  })
  client = new Client({ name: 'log-level', version: '1.0.0' })
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    levels.push(n.params.level)
  })
  await client.connect(new StreamableHTTPClientTransport(server.url))
  await client.setLoggingLevel('debug')
})
afterAll(async () => {
  await client?.close()
  await server?.close()
})

/** Calls `list_skills` with `_meta` as given; the levels of the log records it brought. */
async function recordsOf(meta: Record<string, unknown> | undefined): Promise<string[]> {
  levels.length = 0
  await client.request(
    {
      method: 'tools/call',
      params: { name: 'list_skills', arguments: {}, ...(meta && { _meta: meta }) },
    },
    CallToolResultSchema,
  )
  return [...levels]
}

describe('2026-07-28 per-request log level', () => {
  it('a 2025 request gets the session level (debug): records are sent', async () => {
    expect((await recordsOf(undefined)).length).toBeGreaterThan(0)
  })

  it('a 2026-07-28 request without a level gets no record, whatever the session level', async () => {
    expect(await recordsOf(MODERN)).toEqual([])
  })

  it('a 2026-07-28 request gets what its _meta level admits, and nothing for a bogus level', async () => {
    const debug = await recordsOf({ ...MODERN, 'io.modelcontextprotocol/logLevel': 'debug' })
    expect(debug.length).toBeGreaterThan(0)
    expect(debug).toContain('debug')
    const error = await recordsOf({ ...MODERN, 'io.modelcontextprotocol/logLevel': 'error' })
    expect(error).toEqual([])
    for (const bogus of ['DEBUG', 'verbose', 7, null, { level: 'debug' }])
      expect(await recordsOf({ ...MODERN, 'io.modelcontextprotocol/logLevel': bogus })).toEqual([])
  })
})
