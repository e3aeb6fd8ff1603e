import { request } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

const BODY = '# Greeter\n\nAlways greet the user by name, warmly.'
const LIFECYCLE = [
  'list_loaded_skills',
  'list_skills',
  'load_skill',
  'refresh_skills',
  'unload_skill',
]

function makeSource(): InMemorySkillSource {
  const greet = new Tool<{ name: string }>({
    name: 'greet',
    description: 'Greets someone by name.',
    inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    handler: ({ name }) => `Hello, ${name}!`,
  })
  const explode = new Tool({
    name: 'explode',
    description: 'Always fails.',
    inputSchema: { type: 'object', properties: {} },
    handler: () => {
      throw new Error('cannot open /home/alice/.secrets/token.txt')
    },
  })
  return new InMemorySkillSource({
    skills: [
      {
        name: 'greeter',
        description: 'Greets people.',
        body: BODY,
        channel: 'inline',
        tools: [greet, explode],
      },
    ],
  })
}

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

let server: McpHttpServer | undefined
const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await server?.close()
  server = undefined
})

async function connect(url: URL): Promise<{ client: Client; changes: () => number }> {
  const client = new Client({ name: 'test', version: '1.0.0' })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1
  })
  await client.connect(new StreamableHTTPClientTransport(url))
  clients.push(client)
  return { client, changes: () => changes }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r))
  expect(check()).toBe(true)
}

describe('skillhost MCP server over Streamable HTTP', () => {
  it('a client cancellation aborts the running skill tool, not the session', async () => {
    let sawAbort = false
    const wait = new Tool({
      name: 'wait_for_abort',
      description: 'Waits until its call is aborted.',
      inputSchema: { type: 'object', properties: {} },
      handler: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.abortSignal.addEventListener('abort', () => {
            sawAbort = true
            resolve('stopped')
          })
        }),
    })
    const source = new InMemorySkillSource({
      skills: [{ name: 'waiter', description: 'Waits.', body: '# Waiter', tools: [wait] }],
    })
    server = await serveMcpHttp({
      createManager: () => createSkillManager({ sources: [source], gate: async () => undefined }),
    })
    const { client } = await connect(server.url)
    await client.callTool({ name: 'load_skill', arguments: { skill: 'waiter' } })
    const controller = new AbortController()
    const call = client
      .callTool({ name: 'wait_for_abort', arguments: {} }, undefined, { signal: controller.signal })
      .catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 100))
    expect(sawAbort).toBe(false)
    controller.abort()
    await call
    await expect.poll(() => sawAbort).toBe(true)
    // The session itself lives on.
    const listed = await client.callTool({ name: 'list_loaded_skills', arguments: {} })
    expect(JSON.parse(text(listed)).projected).toEqual(['waiter'])
  })

  it('closes a session that went idle and disposes its manager', async () => {
    const managers: SkillManager[] = []
    const events: string[] = []
    server = await serveMcpHttp({
      // Long enough that a loaded machine's gap between `initialize` and the
      // client's stream opening is not itself idleness (it was 150 ms, and at
      // load 17 the session expired before `connect` finished).
      idleTimeoutMs: 2_000,
      onSession: (e) => events.push(e.kind),
      createManager: async () => {
        const m = await createSkillManager({ sources: [makeSource()], gate: async () => undefined })
        managers.push(m)
        return m
      },
    })
    const { client } = await connect(server.url)
    await client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    // A connected client holds its notification stream open: never idle,
    // even past the idle time.
    await new Promise((r) => setTimeout(r, 2_500))
    expect(server.sessionCount()).toBe(1)
    // The client vanishes without a DELETE: its streams drop, the session stays.
    await client.close()
    expect(server.sessionCount()).toBe(1)
    await expect.poll(() => server?.sessionCount(), { timeout: 30_000 }).toBe(0)
    expect(events).toEqual(['opened', 'closed'])
    // The manager is gone: mutations refuse.
    const err = await managers[0]!
      .load('greeter', managers[0]!.createTurnContext())
      .catch((e: unknown) => e)
    expect((err as { code?: string }).code).toBe('E_SKILL_MANAGER_DISPOSED')
  })

  it('lists, loads, calls, unloads, with tools/list_changed after each change', async () => {
    const managers: SkillManager[] = []
    server = await serveMcpHttp({
      createManager: async () => {
        const m = await createSkillManager({ sources: [makeSource()], gate: async () => undefined })
        managers.push(m)
        return m
      },
    })
    expect(server.url.hostname).toBe('127.0.0.1')
    const { client, changes } = await connect(server.url)
    expect(server.sessionCount()).toBe(1)

    const before = await client.listTools()
    expect(before.tools.map((t) => t.name).sort()).toEqual(LIFECYCLE)

    const listed = await client.callTool({ name: 'list_skills', arguments: {} })
    expect(JSON.parse(text(listed)).skills[0]).toMatchObject({ id: 'greeter', loaded: false })

    const loaded = await client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    expect(loaded.isError).toBeFalsy()
    expect(JSON.parse(text(loaded))).toMatchObject({
      id: 'greeter',
      body: BODY,
      toolsAdded: ['greet', 'explode'],
    })
    await until(() => changes() >= 1)
    const after = (await client.listTools()).tools.map((t) => t.name)
    expect(after).toEqual(
      expect.arrayContaining([...LIFECYCLE, 'greet', 'explode', 'artifact_cat']),
    )
    expect(
      (await client.listTools()).tools.find((t) => t.name === 'greet')?.inputSchema,
    ).toMatchObject({
      type: 'object',
      required: ['name'],
    })

    const greeted = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })
    expect(greeted.isError).toBeFalsy()
    expect(text(greeted)).toMatch(/^Hello, Ada!/)

    const failed = await client.callTool({ name: 'explode', arguments: {} })
    expect(failed.isError).toBe(true)
    expect(text(failed)).toMatch(/^E_SKILL_TOOL_FAILED: /)
    expect(text(failed)).not.toContain('/home/alice')

    const invalid = await client.callTool({ name: 'greet', arguments: { name: 7 } })
    expect(invalid.isError).toBe(true)
    expect(text(invalid)).toMatch(/^E_TOOL_INVALID_ARGS: /)

    const seen = changes()
    const unloaded = await client.callTool({
      name: 'unload_skill',
      arguments: { skill: 'greeter' },
    })
    expect(JSON.parse(text(unloaded))).toMatchObject({ id: 'greeter' })
    await until(() => changes() > seen)
    const gone = (await client.listTools()).tools.map((t) => t.name)
    expect(gone).not.toContain('greet')
    expect(gone).toContain('artifact_cat')

    // A tool no longer offered is a protocol error (-32602), with one prefix.
    const stale = client.callTool({ name: 'greet', arguments: { name: 'Bob' } })
    await expect(stale).rejects.toThrow(/^MCP error -32602: E_TOOL_NOT_FOUND: Unknown tool greet:/)

    // The earlier result is still readable by id after unload.
    const id = /\[result (r_[0-9a-f]{16}) /.exec(text(greeted))?.[1]
    expect(id).toBeDefined()
    const cat = await client.callTool({ name: 'artifact_cat', arguments: { id } })
    expect(cat.isError).toBeFalsy()
    expect(text(cat)).toContain('Hello, Ada!')

    const refreshedBefore = changes()
    await client.callTool({ name: 'refresh_skills', arguments: {} })
    await client.callTool({ name: 'list_skills', arguments: { refresh: true } })
    await until(() => changes() > refreshedBefore)
    expect(managers).toHaveLength(1)
  })

  it('gives each session its own manager and context, and disposes it when the session ends', async () => {
    const managers: SkillManager[] = []
    server = await serveMcpHttp({
      createManager: async () => {
        const m = await createSkillManager({ sources: [makeSource()], gate: async () => undefined })
        managers.push(m)
        return m
      },
    })
    const a = await connect(server.url)
    const b = await connect(server.url)
    expect(server.sessionCount()).toBe(2)
    await a.client.callTool({ name: 'load_skill', arguments: { skill: 'greeter' } })
    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('greet')
    expect((await b.client.listTools()).tools.map((t) => t.name)).not.toContain('greet')
    expect(managers.map((m) => m.loaded())).toEqual([['greeter'], []])

    await (a.client.transport as StreamableHTTPClientTransport).terminateSession()
    await until(() => server?.sessionCount() === 1)
    await expect(
      managers[0]?.load('greeter', managers[0].createTurnContext()),
    ).rejects.toMatchObject({
      code: 'E_SKILL_MANAGER_DISPOSED',
    })
  })

  it('refuses requests without a session, and foreign Host headers', async () => {
    server = await serveMcpHttp({
      createManager: () =>
        createSkillManager({ sources: [makeSource()], gate: async () => undefined }),
    })
    const post = (headers: Record<string, string>) =>
      fetch(server?.url ?? '', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    expect((await post({})).status).toBe(400)
    expect((await post({ 'mcp-session-id': 'nope' })).status).toBe(404)
    // fetch cannot forge Host; node:http can, as a rebinding page's browser effectively does.
    const forged = await new Promise<number>((resolve, reject) => {
      const req = request(
        server?.url ?? '',
        { method: 'POST', headers: { host: 'evil.example:80' } },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.end('{}')
    })
    expect(forged).toBe(403)
    expect(server.sessionCount()).toBe(0)
  })
})
