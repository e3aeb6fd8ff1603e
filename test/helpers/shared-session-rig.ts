// Replicas of `serveMcpHttp` sharing sessions through a private PostgreSQL,
// wired as `skillhost serve --http --postgres` wires them (openServePostgres:
// its pools, deadlines, session store and per-session spools), with raw HTTP
// requests so a test sees statuses, headers and bodies as a client does.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { openServePostgres, type ServePostgres } from '../../src/cli/serve/serve-postgres.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

export const greeter = () => ({
  name: 'greeter',
  description: 'Greets people.',
  body: '# Greeter\n\nSay hello.',
  channel: 'inline' as const,
  tools: [
    new Tool<{ name: string }>({
      name: 'greet',
      description: 'Greets someone by name.',
      inputSchema: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' } },
      },
      handler: ({ name }) => `Hello, ${name}!`,
    }),
  ],
})

/** One replica: its server, its database side, and what it logged. */
export interface Replica {
  readonly http: McpHttpServer
  readonly pg: ServePostgres
  readonly errors: unknown[]
  /** The folder standing for each session's workspace here, by session id (removed when the session's scope is disposed). */
  readonly workspaces: Map<string, string>
}

/** Starts `n` replicas on `url`; `close` ends them all. */
export async function startReplicas(
  url: string,
  n: number,
  options: { deadlineMs: number; storeCheckMs?: number },
): Promise<{ replicas: Replica[]; close(): Promise<void> }> {
  const top = mkdtempSync(join(tmpdir(), 'skillhost-outage-'))
  const source = new InMemorySkillSource({ skills: [greeter()] })
  const replicas: Replica[] = []
  for (let i = 0; i < n; i++) {
    const pg = await openServePostgres(url, () => undefined, { deadlineMs: options.deadlineMs })
    const errors: unknown[] = []
    const workspaces = new Map<string, string>()
    const http = await serveMcpHttp({
      createManager: async ({ sessionId, disposables }) => {
        const dir = join(top, `r${i}-${sessionId}`)
        mkdirSync(dir)
        writeFileSync(join(dir, 'notes.txt'), 'work in progress')
        workspaces.set(sessionId, dir)
        disposables.add(() => rmSync(dir, { recursive: true, force: true }))
        return createSkillManager({
          sources: [source],
          gate: async () => undefined,
          spool: pg.spoolFor(sessionId),
        })
      },
      sessionStore: pg.sessionStore,
      catalogFeed: pg.catalogFeed,
      replica: pg.replica,
      onSharedError: (event) => errors.push(event.error),
      ...(options.storeCheckMs !== undefined ? { storeCheckMs: options.storeCheckMs } : {}),
    })
    replicas.push({ http, pg, errors, workspaces })
  }
  return {
    replicas,
    close: async () => {
      for (const r of replicas) {
        await r.http.close()
        await r.pg.dispose()
      }
      rmSync(top, { recursive: true, force: true })
    },
  }
}

export const workspaceKept = (replica: Replica, sessionId: string): boolean =>
  existsSync(join(replica.workspaces.get(sessionId) ?? '/nonexistent', 'notes.txt'))

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'outage', version: '1' },
  },
}

/** What a raw request got back. */
export interface Reply {
  readonly status: number
  readonly retryAfter: string | null
  readonly text: string
  readonly json: {
    error?: { message?: string; data?: { code?: string } }
    result?: { tools?: { name: string }[]; content?: { text?: string }[]; isError?: boolean }
  }
}

const parse = (text: string): Reply['json'] => {
  const data = text.split('\n').find((line) => line.startsWith('data: '))
  try {
    return JSON.parse(data ? data.slice(6) : text)
  } catch {
    return {}
  }
}

/** One JSON-RPC POST (or a DELETE when `body` is 'DELETE') as a client sends it. */
export async function send(url: URL, sessionId: string | undefined, body: unknown): Promise<Reply> {
  const res = await fetch(url, {
    method: body === 'DELETE' ? 'DELETE' : 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    ...(body === 'DELETE' ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text, json: parse(text) }
}

/** Opens a session on `url` (initialize, then initialized); its id. */
export async function openSession(url: URL): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  })
  await res.text()
  const id = res.headers.get('mcp-session-id')
  if (res.status !== 200 || !id) throw new Error(`initialize failed: HTTP ${res.status}`)
  await send(url, id, { jsonrpc: '2.0', method: 'notifications/initialized' })
  return id
}

export const initialize = (url: URL) => send(url, undefined, INITIALIZE)
export const listTools = (url: URL, sessionId: string, id = 1) =>
  send(url, sessionId, { jsonrpc: '2.0', id, method: 'tools/list' })
export const callTool = (url: URL, sessionId: string, name: string, args: unknown, id = 2) =>
  send(url, sessionId, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  })
