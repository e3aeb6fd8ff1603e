import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { createSkillMcpServer, type SkillMcpSession } from './create-skill-mcp-server.js'
import { type McpSessionFactoryOptions, openSessionManager } from './serve-stdio.js'

/** Options for `serveMcpHttp`. */
export interface ServeMcpHttpOptions extends McpSessionFactoryOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string
  /**
   * Accepted `Host` header values (DNS-rebinding protection). Default: the
   * loopback names with the bound port when `host` is a loopback address;
   * unchecked otherwise (put your own proxy in front).
   */
  readonly allowedHosts?: readonly string[]
  /**
   * When set, every request must carry `Authorization: Bearer <token>`
   * (compared in constant time over sha256 digests); others get 401 with
   * `WWW-Authenticate: Bearer`.
   */
  readonly token?: string
  /** Largest accepted POST body in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number
  /**
   * A session with no request in flight for this long is closed and its
   * manager disposed (clients that vanish without a DELETE would otherwise
   * hold their managers, guests and workspaces forever). Default 30 minutes;
   * 0 disables it. An open notification stream counts as a request in flight.
   */
  readonly idleTimeoutMs?: number
  /** Called when a session starts or ends, for logging. */
  readonly onSession?: (event: {
    readonly kind: 'opened' | 'closed'
    readonly sessionId: string
  }) => void
}

/** A running Streamable HTTP server. */
export interface McpHttpServer extends AsyncDisposable {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: URL
  /** Number of open sessions. */
  sessionCount(): number
  /**
   * Closes every session (disposing its manager, then its scope's
   * disposables) and stops listening. Idempotent.
   */
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

function rpcError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > max) throw Object.assign(new Error('body too large'), { status: 413 })
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 })
  }
}

/**
 * Serves MCP over Streamable HTTP (official SDK transport, stateful): each
 * `initialize` opens a session with its own manager (from `createManager`)
 * and its own long-lived turn context; requests carrying `mcp-session-id` are
 * routed to that session; a DELETE, a transport close, `idleTimeoutMs`
 * without traffic or `close()` ends it and disposes its manager.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const { port = 0, host = '127.0.0.1', path = '/mcp', maxBodyBytes = 4 * 1024 * 1024 } = options
  const { createManager, onSession, allowedHosts: _a, token: _t, ...sessionOptions } = options
  const sessions = new Map<
    string,
    {
      transport: StreamableHTTPServerTransport
      session: SkillMcpSession
      lastSeen: number
      inFlight: number
    }
  >()
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000
  const end = (id: string): void => {
    const entry = sessions.get(id)
    if (!entry) return
    sessions.delete(id)
    onSession?.({ kind: 'closed', sessionId: id })
    void entry.session.close().catch(() => undefined)
  }
  let allowed: ReadonlySet<string> | undefined

  const open = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // The id is chosen before the manager, so the factory can name what it
    // makes for the session (its spool folder) after it.
    const id = randomUUID()
    const { manager, disposables } = await openSessionManager(createManager, id)
    const session = createSkillMcpServer({
      ...sessionOptions,
      manager,
      disposeManager: true,
      disposables,
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, { transport, session, lastSeen: Date.now(), inFlight: 0 })
        onSession?.({ kind: 'opened', sessionId: id })
      },
    })
    session.server.onclose = () => {
      if (transport.sessionId !== undefined) end(transport.sessionId)
      void session.close().catch(() => undefined)
    }
    await session.server.connect(transport)
    await transport.handleRequest(req, res, body)
    // An initialize that failed never produced a session: release what it made.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId))
      await session.close()
  }

  const want = options.token === undefined ? undefined : sha256(options.token)
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (want) {
      const header = String(req.headers.authorization ?? '')
      const given = sha256(header.startsWith('Bearer ') ? header.slice(7) : '')
      if (!header.startsWith('Bearer ') || !timingSafeEqual(given, want)) {
        res.setHeader('www-authenticate', 'Bearer')
        return rpcError(res, 401, 'Unauthorized')
      }
    }
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== path) return rpcError(res, 404, 'Not found')
    if (allowed && !allowed.has(String(req.headers.host ?? '').toLowerCase())) {
      return rpcError(res, 403, 'Host not allowed')
    }
    const sessionId = req.headers['mcp-session-id']
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (existing) {
      existing.inFlight += 1
      res.once('close', () => {
        existing.inFlight -= 1
        existing.lastSeen = Date.now()
      })
      const body = req.method === 'POST' ? await readJson(req, maxBodyBytes) : undefined
      return existing.transport.handleRequest(req, res, body)
    }
    if (sessionId !== undefined) return rpcError(res, 404, 'Session not found')
    if (req.method !== 'POST') return rpcError(res, 400, 'No session: send initialize first')
    const body = await readJson(req, maxBodyBytes)
    if (!isInitializeRequest(body)) return rpcError(res, 400, 'No session: send initialize first')
    return open(req, res, body)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: { status?: number }) => {
      rpcError(res, typeof err?.status === 'number' ? err.status : 500, 'Internal error')
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = (server.address() as AddressInfo).port
  if (options.allowedHosts) allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()))
  else if (LOOPBACK.has(host))
    allowed = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`])
  const urlHost = host.includes(':') ? `[${host}]` : host
  const sweeper =
    idleTimeoutMs > 0
      ? setInterval(
          () => {
            const now = Date.now()
            for (const [id, entry] of sessions) {
              if (entry.inFlight === 0 && now - entry.lastSeen > idleTimeoutMs) end(id)
            }
          },
          Math.max(10, Math.min(60_000, Math.floor(idleTimeoutMs / 4))),
        )
      : undefined
  sweeper?.unref()

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (sweeper) clearInterval(sweeper)
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.allSettled(open.map(({ session }) => session.close()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })()
    return closing
  }

  return {
    url: new URL(`http://${urlHost}:${bound}${path}`),
    sessionCount: () => sessions.size,
    close,
    [Symbol.asyncDispose]: close,
  }
}
