import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import {
  migratePostgresSessions,
  PostgresCatalogFeed,
  PostgresSessionStore,
} from '../../src/adapters/postgres/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { modernRequest } from '../helpers/mcp-http-requests.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

// A 2026-07-28 `subscriptions/listen` stream on replica B hears of a
// refresh made on replica A (`refresh_skills`, published through the
// PostgreSQL catalog feed): B refreshes the listen session's catalog as it
// refreshes its own sessions' (serve-http.ts), and the stream carries the
// change. Two real replicas on a private PostgreSQL.

let server: SharedPostgres
const closers: Array<() => Promise<unknown>> = []
beforeAll(async () => {
  server = await sharedPostgres()
})
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined)
})

const skill = (name: string) => ({
  name,
  description: `The ${name} skill, for the listen feed test.`,
  body: `# ${name}`,
})

/** Two replicas sharing one database, one feed each, and one skill source. */
async function replicas(source: InMemorySkillSource): Promise<McpHttpServer[]> {
  const url = server.createDatabase('listen_feed')
  const pool = new pg.Pool({ connectionString: url, max: 6 })
  closers.push(() => pool.end())
  await migratePostgresSessions(pool)
  const store = new PostgresSessionStore({ pool })
  const servers: McpHttpServer[] = []
  for (const replica of ['replica-a', 'replica-b']) {
    const feed = new PostgresCatalogFeed({
      pool,
      connect: () => new pg.Client({ connectionString: url }),
      replica,
    })
    await feed.start()
    const http = await serveMcpHttp({
      host: '127.0.0.1',
      createManager: async () =>
        createSkillManager({ sources: [source], gate: async () => undefined }),
      sessionStore: store,
      catalogFeed: feed,
      replica,
    })
    closers.push(
      () => feed.close(),
      () => http.close(),
    )
    servers.push(http)
  }
  return servers
}

describe('subscriptions/listen across replicas', () => {
  it("a refresh on A reaches B's listen stream as a list change stamped with the listen id", async () => {
    const source = new InMemorySkillSource({ skills: [skill('first-skill')] })
    const [a, b] = (await replicas(source)) as [McpHttpServer, McpHttpServer]
    const res = await fetch(
      b.url,
      modernRequest(
        'subscriptions/listen',
        { notifications: { resourcesListChanged: true } },
        { id: 42 },
      ),
    )
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const until = async (needle: string): Promise<void> => {
      while (!text.includes(needle)) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`stream ended before ${needle}`)
        text += decoder.decode(value, { stream: true })
      }
    }
    await until('notifications/subscriptions/acknowledged')
    // A 2025 client on A adds nothing itself: the source changes, A refreshes and publishes.
    const client = new Client({ name: 'refresher', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(a.url))
    closers.push(() => client.close())
    source.add(skill('second-skill'))
    const refreshed = await client.callTool({ name: 'refresh_skills', arguments: {} })
    expect(refreshed.isError).toBeFalsy()
    await until('notifications/resources/list_changed')
    const change = text
      .split('\n\n')
      .find((block) => block.includes('notifications/resources/list_changed')) as string
    const data = JSON.parse(change.slice(change.indexOf('data: ') + 6)) as {
      params: { _meta: Record<string, unknown> }
    }
    expect(data.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(42)
    await reader.cancel()
  })
})
