import { randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import type { SkillManager } from '../../manager/types.js'
import { coalescedPasses } from './coalesced-passes.js'
import { createSkillMcpServer, type SkillMcpSession } from './create-skill-mcp-server.js'
import { HttpRefusal, readJson, refuse, restoreError, rpcError, sha256 } from './http-replies.js'
import { replayInitialize } from './replay-initialize.js'
import {
  type McpHttpServer,
  SERVE_HTTP_LIMITS,
  type ServeMcpHttpOptions,
} from './serve-http-options.js'
import { openSessionManager } from './serve-stdio.js'
import { SharedSession } from './shared-session.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
/** Session ids this server accepts from a client: what `randomUUID` makes, and nothing longer. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface SessionEntry {
  transport: StreamableHTTPServerTransport
  session: SkillMcpSession
  manager: SkillManager
  shared: SharedSession | undefined
  lastSeen: number
  inFlight: number
  /** The credential that opened it (a digest), for the per-token cap. */
  owner: string
}

/**
 * Serves MCP over Streamable HTTP (official SDK transport, stateful): each
 * `initialize` opens a session with its own manager (from `createManager`)
 * and its own long-lived turn context; requests carrying `mcp-session-id` are
 * routed to that session; a DELETE, a transport close, `idleTimeoutMs`
 * without traffic or `close()` ends it and disposes its manager. Open
 * sessions, request bodies and their deadline are bounded (see
 * `SERVE_HTTP_LIMITS`); a refused request gets 503 (with `Retry-After`), 413
 * or 408 and is reported to `onLimit`.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const { port = 0, host = '127.0.0.1', path = '/mcp' } = options
  const maxSessions = options.maxSessions ?? SERVE_HTTP_LIMITS.maxSessions
  const maxSessionsPerToken = options.maxSessionsPerToken ?? maxSessions
  const body = {
    maxBytes: options.maxBodyBytes ?? SERVE_HTTP_LIMITS.maxBodyBytes,
    timeoutMs: options.bodyTimeoutMs ?? SERVE_HTTP_LIMITS.bodyTimeoutMs,
    inFlight: {
      used: 0,
      max: options.maxBodyBytesInFlight ?? SERVE_HTTP_LIMITS.maxBodyBytesInFlight,
    },
  }
  const {
    createManager,
    onSession,
    onLimit: _l,
    maxSessions: _ms,
    maxSessionsPerToken: _mt,
    maxBodyBytes: _mb,
    maxBodyBytesInFlight: _mf,
    bodyTimeoutMs: _bt,
    allowedHosts: _a,
    token: _t,
    sessionStore: _s,
    catalogFeed: _f,
    replica: _r,
    onSharedError: _e,
    ...sessionOptions
  } = options
  const { sessionStore: store, catalogFeed: feed, onSharedError } = options
  const replica = options.replica ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const owner = `sha256:${sha256(options.token ?? '').toString('hex')}`
  const sessions = new Map<string, SessionEntry>()
  const restoring = new Map<string, Promise<SessionEntry | undefined>>()
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000
  // Sessions being opened (initialize or restore under way), by owner: they
  // count against the caps before they are registered, so a burst of
  // initializes cannot pass them together.
  const opening = new Map<string, number>()
  const countOf = (who: string): number => {
    let n = opening.get(who) ?? 0
    for (const entry of sessions.values()) if (entry.owner === who) n += 1
    return n
  }
  /** Reserves room for one more session of `who`, or throws the 503 refusal. */
  const admit = (who: string): (() => void) => {
    let total = sessions.size
    for (const n of opening.values()) total += n
    if (total >= maxSessions)
      throw new HttpRefusal(503, `Too many open sessions (at most ${maxSessions})`, 'sessions', 30)
    if (countOf(who) >= maxSessionsPerToken)
      throw new HttpRefusal(
        503,
        `Too many open sessions for this credential (at most ${maxSessionsPerToken})`,
        'sessionsPerToken',
        30,
      )
    opening.set(who, (opening.get(who) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (opening.get(who) ?? 1) - 1
      if (left > 0) opening.set(who, left)
      else opening.delete(who)
    }
  }
  /** Ends the session here (a stored session lives on for other processes). */
  const end = (id: string): void => {
    const entry = sessions.get(id)
    if (!entry) return
    sessions.delete(id)
    onSession?.({ kind: 'closed', sessionId: id })
    void entry.session.close().catch(() => undefined)
  }
  let allowed: ReadonlySet<string> | undefined

  /**
   * Builds a session's manager, server and transport under `id`. A fresh
   * session registers (and is stored) when its initialize succeeds; a
   * restored one is registered by `restore`.
   */
  const start = async (id: string, fresh: boolean): Promise<SessionEntry> => {
    const { manager, disposables } = await openSessionManager(createManager, id)
    let session: SkillMcpSession | undefined
    const shared = store
      ? new SharedSession({
          store,
          sessionId: id,
          replica,
          manager,
          ctx: () => (session as SkillMcpSession).ctx,
        })
      : undefined
    session = createSkillMcpServer({
      ...sessionOptions,
      manager,
      disposeManager: true,
      disposables,
      ...(shared && {
        aroundLifecycleMutation: async <T>(tool: string, run: () => Promise<T>): Promise<T> => {
          const result = await shared.mutate(run)
          if (tool === 'refresh_skills' && feed)
            feed.publish().catch((error) => onSharedError?.({ sessionId: id, error }))
          return result
        },
        takeNotice: () => shared.takeNotice(),
      }),
    })
    const entry: SessionEntry = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        onsessioninitialized: async () => {
          if (!fresh) return
          if (shared && store) {
            const initialize = pendingInit.get(id)
            await store.create({
              sessionId: id,
              owner,
              transport: { initialize },
              state: await shared.initialState(),
            })
          }
          entry.lastSeen = Date.now()
          sessions.set(id, entry)
          onSession?.({ kind: 'opened', sessionId: id })
        },
      }),
      session,
      manager,
      shared,
      lastSeen: Date.now(),
      inFlight: 0,
      owner,
    }
    const { transport } = entry
    session.server.onclose = () => {
      if (transport.sessionId !== undefined && sessions.get(transport.sessionId) === entry)
        end(transport.sessionId)
      void session.close().catch(() => undefined)
    }
    await session.server.connect(transport)
    return entry
  }
  // The initialize request a fresh session stores, by session id, while it is handled.
  const pendingInit = new Map<string, unknown>()

  const open = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // The id is chosen before the manager, so the factory can name what it
    // makes for the session (its spool folder) after it.
    const id = randomUUID()
    const release = admit(owner)
    let entry: SessionEntry
    try {
      entry = await start(id, true)
      pendingInit.set(id, body)
      try {
        await entry.transport.handleRequest(req, res, body)
      } finally {
        pendingInit.delete(id)
      }
    } finally {
      release()
    }
    // An initialize that failed never produced a session: release what it made.
    if (sessions.get(id) !== entry) await entry.session.close()
    else entry.lastSeen = Date.now()
  }

  /** Restores a stored session here, once however many requests ask at the same time. */
  const restore = (id: string): Promise<SessionEntry | undefined> => {
    let pending = restoring.get(id)
    if (!pending) {
      pending = (async () => {
        const stored = store ? await store.get(id) : undefined
        const initialize = (stored?.transport as { initialize?: unknown } | undefined)?.initialize
        if (!stored || stored.owner !== owner || !isInitializeRequest(initialize)) return undefined
        const release = admit(owner)
        let entry: SessionEntry
        try {
          entry = await start(id, false)
          try {
            await replayInitialize(entry.transport, initialize, id)
            await entry.shared?.restore()
          } catch (err) {
            await entry.session.close().catch(() => undefined)
            throw err
          }
        } finally {
          release()
        }
        entry.lastSeen = Date.now()
        sessions.set(id, entry)
        onSession?.({ kind: 'restored', sessionId: id })
        return entry
      })().finally(() => restoring.delete(id))
      restoring.set(id, pending)
    }
    return pending
  }

  // After another process refreshed: every session's catalog here, one pass at a time.
  const refreshAll = coalescedPasses(async () => {
    for (const [sessionId, entry] of [...sessions])
      await entry.manager.refresh().catch((error) => onSharedError?.({ sessionId, error }))
  })
  const unsubscribeFeed = store && feed ? feed.subscribe(refreshAll) : undefined

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
    const parsed = req.method === 'POST' ? await readJson(req, body) : undefined
    let existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (!existing && typeof sessionId === 'string' && store && SESSION_ID.test(sessionId)) {
      if (req.method === 'DELETE') return deleteStored(sessionId, res)
      try {
        existing = await restore(sessionId)
      } catch (err) {
        if (err instanceof HttpRefusal) throw err
        onSharedError?.({ sessionId, error: err })
        return restoreError(res, parsed, err)
      }
    }
    if (existing) {
      const entry = existing
      entry.inFlight += 1
      res.once('close', () => {
        entry.inFlight -= 1
        entry.lastSeen = Date.now()
      })
      if (entry.shared && typeof sessionId === 'string' && req.method === 'POST') {
        try {
          if ((await entry.shared.sync()) === 'gone') {
            end(sessionId)
            return rpcError(res, 404, 'Session not found')
          }
        } catch (err) {
          onSharedError?.({ sessionId, error: err })
          end(sessionId)
          return restoreError(res, parsed, err)
        }
      }
      await entry.transport.handleRequest(req, res, parsed)
      if (req.method === 'DELETE' && store && typeof sessionId === 'string' && res.statusCode < 300)
        await store.remove(sessionId)
      return
    }
    if (sessionId !== undefined) return rpcError(res, 404, 'Session not found')
    if (req.method !== 'POST') return rpcError(res, 400, 'No session: send initialize first')
    if (!isInitializeRequest(parsed)) return rpcError(res, 400, 'No session: send initialize first')
    return open(req, res, parsed)
  }

  /** A DELETE of a stored session this process does not hold: ends it for every process. */
  const deleteStored = async (id: string, res: ServerResponse): Promise<void> => {
    const stored = await store?.get(id)
    if (!stored || stored.owner !== owner) return rpcError(res, 404, 'Session not found')
    await store?.remove(id)
    res.writeHead(200).end()
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: { status?: number }) => {
      if (err instanceof HttpRefusal) {
        if (err.limit)
          options.onLimit?.({ limit: err.limit, status: err.status, message: err.message })
        return refuse(res, err)
      }
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
      unsubscribeFeed?.()
      await Promise.allSettled([...restoring.values()])
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

export type { McpHttpServer, ServeMcpHttpOptions }
