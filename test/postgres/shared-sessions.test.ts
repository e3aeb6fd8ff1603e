import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import {
  migratePostgresSessions,
  PostgresCatalogFeed,
  PostgresSessionStore,
} from '../../src/adapters/postgres/index.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'

let server: SharedPostgres
let url: string
let pool: pg.Pool
let dbCount = 0
beforeAll(async () => {
  server = await sharedPostgres()
})

const greet = (greeting: string) =>
  new Tool<{ name: string }>({
    name: 'greet',
    description: 'Greets someone by name.',
    inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    handler: ({ name }) => `${greeting}, ${name}!`,
  })
const greeter = (greeting = 'Hello') => ({
  name: 'greeter',
  description: 'Greets people.',
  body: `# Greeter\n\nSay ${greeting}.`,
  channel: 'inline' as const,
  tools: [greet(greeting)],
})

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

const opened: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const c of opened.splice(0).reverse()) await c.close().catch(() => undefined)
})

/** A fresh database with the session tables, and `n` servers ("replicas") sharing it and one skill source. */
async function replicas(
  n: number,
  source: InMemorySkillSource,
  options: {
    token?: (i: number) => string | undefined
    /** Collects each replica's managers, by replica index. */
    managers?: SkillManager[][]
    /** Sources served after `source`, in order. */
    more?: InMemorySkillSource[]
  } = {},
) {
  url = server.createDatabase(`shared_${++dbCount}`)
  pool = new pg.Pool({ connectionString: url, max: 10 })
  opened.push({ close: () => pool.end() })
  await migratePostgresSessions(pool)
  const store = new PostgresSessionStore({ pool })
  const servers: McpHttpServer[] = []
  const feeds: PostgresCatalogFeed[] = []
  for (let i = 0; i < n; i++) {
    const feed = new PostgresCatalogFeed({
      pool,
      connect: () => new pg.Client({ connectionString: url }),
      replica: `replica-${i}`,
    })
    await feed.start()
    feeds.push(feed)
    const token = options.token?.(i)
    const http = await serveMcpHttp({
      createManager: async () => {
        const manager = await createSkillManager({
          sources: [source, ...(options.more ?? [])],
          gate: async () => undefined,
        })
        if (options.managers) options.managers[i] = [...(options.managers[i] ?? []), manager]
        return manager
      },
      sessionStore: store,
      catalogFeed: feed,
      replica: `replica-${i}`,
      ...(token ? { token } : {}),
    })
    servers.push(http)
    opened.push(http, { close: () => feed.close() })
  }
  return { servers, feeds, store }
}

async function connect(target: URL, sessionId?: string, token?: string) {
  const transport = new StreamableHTTPClientTransport(target, {
    ...(sessionId ? { sessionId } : {}),
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  })
  const client = new Client({ name: 'shared-test', version: '1.0.0' })
  await client.connect(transport)
  opened.push(client)
  return { client, transport }
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name)

describe('MCP sessions shared through PostgreSQL (serveMcpHttp + PostgresSessionStore)', () => {
  it('a skill loaded through A is callable through B with the same session id', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers, store } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    const loaded = await onA.client.callTool({
      name: 'load_skill',
      arguments: { skill: 'greeter' },
    })
    expect(loaded.isError).toBeFalsy()
    const stored = await store.get(sessionId)
    expect(stored?.state.skills).toEqual([
      { id: 'greeter', version: expect.any(String), channel: 'inline' },
    ])
    expect(b.sessionCount()).toBe(0)

    const onB = await connect(b.url, sessionId)
    const called = await onB.client.callTool({ name: 'greet', arguments: { name: 'Ada' } })
    expect(text(called)).toMatch(/^Hello, Ada!/)
    expect(b.sessionCount()).toBe(1)
    expect(await toolNames(onB.client)).toContain('greet')

    // An unload on B reaches A before A serves its next request.
    await onB.client.callTool({ name: 'unload_skill', arguments: { skill: 'greeter' } })
    expect(await toolNames(onA.client)).not.toContain('greet')
    // An unknown tool is JSON-RPC -32602 (issue 36 item 5), no longer a tool result.
    await expect(
      onA.client.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
    ).rejects.toThrow(/-32602: E_TOOL_NOT_FOUND/)
    expect((await store.get(sessionId))?.state.skills).toEqual([])
  })

  it('a skill loaded with arguments through A is restored on B with the same arguments and body', async () => {
    const source = new InMemorySkillSource({
      skills: [{ ...greeter(), body: 'Greet $0 in $1. Asked: $ARGUMENTS' }],
    })
    const managers: SkillManager[][] = []
    const { servers, store } = await replicas(2, source, { managers })
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    const loaded = await onA.client.callTool({
      name: 'load_skill',
      arguments: { skill: 'greeter', arguments: `Ada 'plain English'` },
    })
    const body = "Greet Ada in plain English. Asked: Ada 'plain English'"
    expect(JSON.parse(text(loaded)).body).toBe(body)
    expect((await store.get(sessionId))?.state.skills).toEqual([
      {
        id: 'greeter',
        version: expect.any(String),
        channel: 'inline',
        arguments: `Ada 'plain English'`,
      },
    ])

    const onB = await connect(b.url, sessionId)
    expect(text(await onB.client.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toMatch(
      /^Hello, Ada!/,
    )
    const [onBManager] = managers[1] ?? []
    expect(onBManager?.loadedSkills()).toEqual([
      expect.objectContaining({ id: 'greeter', arguments: `Ada 'plain English'` }),
    ])
    // Projected into a fresh turn, B's rebuilt record shows the body A showed.
    const again = await onBManager!.load('greeter', onBManager!.createTurnContext(), {
      arguments: `Ada 'plain English'`,
    })
    expect(again.body).toBe(body)
  })

  it('a shadowed copy loaded by its ref through A is restored on B as that same copy', async () => {
    const first = new InMemorySkillSource({ id: 'first', skills: [greeter('Hello')] })
    const second = new InMemorySkillSource({ id: 'second', skills: [greeter('Howdy')] })
    const { servers, store } = await replicas(2, first, { more: [second] })
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    const found = JSON.parse(
      text(await onA.client.callTool({ name: 'list_skills', arguments: { query: 'greet' } })),
    )
    expect(found.skills.map((s: { ref: string }) => s.ref)).toEqual(['greeter', 'second:greeter'])
    const loaded = await onA.client.callTool({
      name: 'load_skill',
      arguments: { skill: 'second:greeter' },
    })
    expect(JSON.parse(text(loaded))).toMatchObject({
      ref: 'second:greeter',
      body: '# Greeter\n\nSay Howdy.',
    })
    expect((await store.get(sessionId))?.state.skills).toEqual([
      { id: 'greeter', ref: 'second:greeter', version: expect.any(String), channel: 'inline' },
    ])
    const onB = await connect(b.url, sessionId)
    expect(text(await onB.client.callTool({ name: 'greet', arguments: { name: 'Ada' } }))).toMatch(
      /^Howdy, Ada!/,
    )
  })

  it('a session whose pinned version is gone gets E_SKILL_VERSION_GONE on the other replica', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers, store } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    await onA.client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    const before = await store.get(sessionId)
    source.replace(greeter('Howdy'))
    const onB = await connect(b.url, sessionId)
    const failure = await onB.client.callTool({ name: 'greet', arguments: { name: 'Ada' } }).then(
      () => 'no error',
      (err: Error) => err.message,
    )
    expect(failure).toContain('E_SKILL_VERSION_GONE')
    expect(failure).toContain("Skill 'greeter' was loaded at version")
    expect(failure).toContain('Start a new session')
    expect(b.sessionCount()).toBe(0)
    // The stored session is left as it was.
    expect((await store.get(sessionId))?.state).toEqual(before?.state)
  })

  it('forged, malformed, SQL-ish and other-tenant session ids are "not found", and nothing is touched', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers } = await replicas(2, source, {
      token: (i) => (i === 0 ? 'token-a' : 'token-b'),
    })
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url, undefined, 'token-a')
    const sessionId = onA.transport.sessionId as string
    await onA.client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    const post = (target: URL, id: string, token: string) =>
      fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-session-id': id,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    // Another tenant (B's token) may not continue A's session.
    expect((await post(b.url, sessionId, 'token-b')).status).toBe(404)
    for (const forged of [
      crypto.randomUUID(),
      "'; DROP TABLE skillhost.sessions; --",
      `${sessionId}' OR '1'='1`,
      'x'.repeat(5000),
    ]) {
      expect((await post(a.url, forged, 'token-a')).status).toBe(404)
    }
    expect(b.sessionCount()).toBe(0)
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM skillhost.sessions')
    expect(rows[0].n).toBe(1)
    // The real owner still continues it.
    expect(text(await onA.client.callTool({ name: 'greet', arguments: { name: 'Bo' } }))).toMatch(
      /^Hello, Bo!/,
    )
  })

  it('a refresh that swaps a version on A is stored, and B serves the new version', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers, store } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    await onA.client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    const onB = await connect(b.url, sessionId)
    expect(text(await onB.client.callTool({ name: 'greet', arguments: { name: 'Cy' } }))).toMatch(
      /^Hello, Cy!/,
    )
    const before = (await store.get(sessionId))?.state.skills[0]?.version
    source.replace(greeter('Howdy'))
    const refreshed = await onA.client.callTool({ name: 'refresh_skills', arguments: {} })
    expect(text(refreshed)).toContain('updated')
    const after = (await store.get(sessionId))?.state.skills[0]?.version
    expect(after).toBeDefined()
    expect(after).not.toBe(before)
    expect(text(await onB.client.callTool({ name: 'greet', arguments: { name: 'Cy' } }))).toMatch(
      /^Howdy, Cy!/,
    )
  })

  it('SQL-ish skill ids are just names: not found, and the tables stay', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers, store } = await replicas(1, source)
    const onA = await connect((servers[0] as McpHttpServer).url)
    const sessionId = onA.transport.sessionId as string
    for (const skill of [
      "greeter'; DROP TABLE skillhost.sessions; --",
      'x" OR 1=1 --',
      '\\u0000',
    ]) {
      const r = await onA.client.callTool({ name: 'load_skill', arguments: { skill } })
      expect(r.isError).toBe(true)
      expect(text(r)).toMatch(/E_SKILL_NOT_FOUND|E_TOOL_INVALID_ARGS/)
    }
    expect((await store.get(sessionId))?.state.skills).toEqual([])
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM skillhost.sessions')
    expect(rows[0].n).toBe(1)
  })

  it('a Last-Event-ID resumes on the replica that sent it; on another it is 400, and nothing stays open', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    }
    const listed = await fetch(a.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    })
    const sse = await listed.text()
    const primingId = /^id: (\S+)\nretry: \d+\ndata: \n\n/.exec(sse)?.[1] as string
    expect(primingId).toBeTruthy()
    const resume = (target: URL) =>
      fetch(target, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': primingId },
      })
    // On B (the session restored there) the id is unknown: a JSON-RPC 400.
    const onB = await resume(b.url)
    expect(onB.status).toBe(400)
    expect(onB.headers.get('content-type')).toContain('application/json')
    expect(((await onB.json()) as { error: { code: number } }).error.code).toBe(-32000)
    expect(b.sessionCount()).toBe(1)
    // On A it replays the answer it sent after the priming event.
    const onAgain = await resume(a.url)
    expect(onAgain.status).toBe(200)
    const reader = (onAgain.body as ReadableStream<Uint8Array>).getReader()
    let replayed = ''
    while (!replayed.includes('"id":9')) {
      const { value, done } = await reader.read()
      if (done) break
      replayed += new TextDecoder().decode(value)
    }
    await reader.cancel()
    expect(replayed).toContain('"tools"')
  })

  it('a DELETE on B ends the session for A too', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers, store } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const sessionId = onA.transport.sessionId as string
    const onB = await connect(b.url, sessionId)
    await onB.transport.terminateSession()
    expect(await store.get(sessionId)).toBeUndefined()
    const after = await onA.client.listTools().then(
      () => 'served',
      (err: Error) => err.message,
    )
    expect(after).toContain('Session not found')
    expect(a.sessionCount()).toBe(0)
  })

  it('a refresh on A reaches B through NOTIFY: B sessions see the new catalog and get tools/list_changed', async () => {
    const source = new InMemorySkillSource({ skills: [greeter()] })
    const { servers } = await replicas(2, source)
    const [a, b] = servers as [McpHttpServer, McpHttpServer]
    const onA = await connect(a.url)
    const onB = await connect(b.url)
    const versionOn = async (client: Client) =>
      JSON.parse(text(await client.callTool({ name: 'list_skills', arguments: {} }))).skills[0]
        .version as string
    const old = await versionOn(onB.client)
    let changed = 0
    onB.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1
    })
    source.replace(greeter('Howdy'))
    await onA.client.callTool({ name: 'refresh_skills', arguments: {} })
    for (let i = 0; i < 2000 && changed === 0; i++) await new Promise((r) => setTimeout(r, 5))
    expect(changed).toBeGreaterThan(0)
    const now = await versionOn(onB.client)
    expect(now).not.toBe(old)
    expect(now).toBe(await versionOn(onA.client))
  })
})
