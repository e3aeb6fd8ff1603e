import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { coalescedPasses } from './coalesced-passes.js'
import { HttpRefusal, refuse, rpcError, sha256 } from './http-replies.js'
import { httpRequestHandler } from './http-route.js'
import type { HttpServeContext } from './http-session-start.js'
import { HttpSessionTable } from './http-session-table.js'
import { sweepMovedSessions } from './moved-session-sweep.js'
import {
  type McpHttpServer,
  SERVE_HTTP_LIMITS,
  type ServeMcpHttpOptions,
} from './serve-http-options.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * Serves MCP over Streamable HTTP (official SDK transport, stateful): each
 * `initialize` opens a session with its own manager (from `createManager`)
 * and its own long-lived turn context; requests carrying `mcp-session-id` are
 * routed to that session; a DELETE, a transport close, `idleTimeoutMs`
 * without traffic or `close()` ends it and disposes its manager. Open
 * sessions, request bodies and their deadline are bounded (see
 * `SERVE_HTTP_LIMITS`); a refused request gets 503 (with `Retry-After`), 413
 * or 408 and is reported to `onLimit`. With a `sessionStore`, a store that
 * fails answers 503 `E_SESSION_STORE_FAILED` and ends no session. Beside
 * the endpoint: `GET /healthz` (200 while serving), `GET /readyz`
 * (`readiness`) and, with `metrics`, `GET /metrics` (`answerProbe`); none of
 * them opens or counts a session.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<McpHttpServer> {
  const { port = 0, host = '127.0.0.1', path = '/mcp' } = options
  const ctx = serveContext(options)
  let allowed: ReadonlySet<string> | undefined
  const handle = httpRequestHandler(ctx, {
    path,
    token: options.token === undefined ? undefined : sha256(options.token),
    allowedHosts: () => allowed,
    body: {
      maxBytes: options.maxBodyBytes ?? SERVE_HTTP_LIMITS.maxBodyBytes,
      timeoutMs: options.bodyTimeoutMs ?? SERVE_HTTP_LIMITS.bodyTimeoutMs,
      inFlight: {
        used: 0,
        max: options.maxBodyBytesInFlight ?? SERVE_HTTP_LIMITS.maxBodyBytesInFlight,
      },
    },
    probes: {
      readiness: options.readiness,
      healthPublic: options.healthPublic === true,
      metrics: options.metrics,
      metricsPublic: options.metricsPublic === true,
    },
  })
  const server = createServer((req, res) => {
    handle(req, res).catch((err: { status?: number }) => {
      if (err instanceof HttpRefusal) {
        if (err.limit) {
          options.metrics?.httpLimit(err.limit, err.status)
          options.onLimit?.({ limit: err.limit, status: err.status, message: err.message })
        }
        return refuse(res, err)
      }
      rpcError(res, typeof err?.status === 'number' ? err.status : 500, 'Internal error')
    })
  })
  // Node closes an idle kept-alive socket after 5 s; a client that reuses it as
  // it closes (its own expiry timer late under load) loses the request with
  // "fetch failed" (12 in the two-replica soak at load 20-31). Idle sockets
  // stay longer than any client or balancer keeps one (undici: the server's
  // hint minus 2 s; balancers: 60 s); headers must still arrive in time.
  server.keepAliveTimeout = KEEP_ALIVE_MS
  server.headersTimeout = KEEP_ALIVE_MS + 1_000
  const bound = await listen(server, port, host)
  if (options.allowedHosts) allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()))
  else if (LOOPBACK.has(host))
    allowed = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`])
  const stopTimers = startSweeps(ctx, options)
  // After another process refreshed: every session's catalog here, one pass at a time.
  const refreshAll = coalescedPasses(() => refreshCatalogs(ctx))
  const unsubscribeFeed = ctx.store && ctx.feed ? ctx.feed.subscribe(refreshAll) : undefined

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stopTimers()
      unsubscribeFeed?.()
      await Promise.allSettled([...ctx.restoring.values()])
      // A listener is told its subscription ended (the listen result) before its connection goes.
      for (const listen of [...ctx.listens]) listen.end()
      const taken = ctx.table.takeAll()
      for (const _ of taken) options.metrics?.sessionEnded()
      await Promise.allSettled(taken.map(({ session }) => session.close()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    })()
    return closing
  }
  const urlHost = host.includes(':') ? `[${host}]` : host
  return {
    url: new URL(`http://${urlHost}:${bound}${path}`),
    sessionCount: () => ctx.table.size,
    close,
    [Symbol.asyncDispose]: close,
  }
}

/** Refreshes the catalog of every session held here, and of every open listen stream (its change notices follow). */
async function refreshCatalogs(ctx: HttpServeContext): Promise<void> {
  for (const [sessionId, entry] of ctx.table.entries())
    await entry.manager.refresh().catch((error) => ctx.onSharedError?.({ sessionId, error }))
  for (const listen of [...ctx.listens])
    await listen.refresh().catch((error) => ctx.onSharedError?.({ error }))
}

/** How long an idle kept-alive connection stays open: longer than a load balancer's 60 s idle timeout. */
const KEEP_ALIVE_MS = 65_000

/** The state every stage shares, from the options. */
function serveContext(options: ServeMcpHttpOptions): HttpServeContext {
  const {
    createManager,
    onSession,
    onLimit: _l,
    readiness: _r,
    healthPublic: _hp,
    metricsPublic: _mp,
    maxSessions: _ms,
    maxSessionsPerToken: _mt,
    maxBodyBytes: _mb,
    maxBodyBytesInFlight: _mf,
    bodyTimeoutMs: _bt,
    allowedHosts: _a,
    token: _t,
    sessionStore,
    workspaceStore,
    catalogFeed,
    replica,
    onSharedError,
    idleTimeoutMs: _i,
    storeCheckMs: _c,
    moveCheckMs: _mv,
    port: _p,
    host: _h,
    path: _pa,
    ...sessionOptions
  } = options
  const maxSessions = options.maxSessions ?? SERVE_HTTP_LIMITS.maxSessions
  return {
    createManager,
    sessionOptions,
    store: sessionStore,
    feed: catalogFeed,
    workspaceStore: sessionStore && workspaceStore,
    onSharedError,
    replica: replica ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    owner: `sha256:${sha256(options.token ?? '').toString('hex')}`,
    table: new HttpSessionTable(
      maxSessions,
      options.maxSessionsPerToken ?? maxSessions,
      countedSessions(options.metrics, onSession),
    ),
    restoring: new Map(),
    listens: new Set(),
  }
}

/** `onSession`, with each session counted into `metrics` first (opened or restored, then closed). */
function countedSessions(
  metrics: ServeMcpHttpOptions['metrics'],
  onSession: ServeMcpHttpOptions['onSession'],
): ServeMcpHttpOptions['onSession'] {
  if (!metrics) return onSession
  return (event) => {
    if (event.kind === 'closed') metrics.sessionEnded()
    else metrics.sessionStarted(event.kind)
    onSession?.(event)
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/**
 * The server's timers: the idle sweep (a session with nothing in flight for
 * `idleTimeoutMs` ends here), with a store the moved-session sweep
 * (`sweepMovedSessions`, every `moveCheckMs`) and the stream check (a session
 * with an open notification stream has its stored revision checked every
 * `storeCheckMs`, so a DELETE through another process ends it here too; a
 * store that fails the check ends nothing). Returns their stop.
 */
function startSweeps(ctx: HttpServeContext, options: ServeMcpHttpOptions): () => void {
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000
  const timers: NodeJS.Timeout[] = []
  if (idleTimeoutMs > 0) {
    const every = Math.max(10, Math.min(60_000, Math.floor(idleTimeoutMs / 4)))
    timers.push(
      setInterval(() => {
        const now = Date.now()
        for (const [id, entry] of ctx.table.entries())
          if (entry.inFlight === 0 && now - entry.lastSeen > idleTimeoutMs) ctx.table.end(id)
      }, every),
    )
  }
  const checkMs = options.storeCheckMs ?? SERVE_HTTP_LIMITS.storeCheckMs
  if (ctx.store && checkMs > 0) {
    const check = coalescedPasses(async () => {
      for (const [id, entry] of ctx.table.entries()) {
        if (entry.streams === 0 || !entry.shared) continue
        const state = await entry.shared
          .sync()
          .catch((error) => void ctx.onSharedError?.({ sessionId: id, error }))
        if (state === 'gone' && ctx.table.get(id) === entry) ctx.table.end(id)
      }
    })
    timers.push(setInterval(check, checkMs))
  }
  const moveMs = options.moveCheckMs ?? SERVE_HTTP_LIMITS.moveCheckMs
  if (ctx.store?.revisions && moveMs > 0) {
    const sweep = coalescedPasses(async () => void (await sweepMovedSessions(ctx, moveMs)))
    timers.push(setInterval(sweep, moveMs))
  }
  for (const timer of timers) timer.unref()
  return () => {
    for (const timer of timers) clearInterval(timer)
  }
}

export type { McpHttpServer, ServeMcpHttpOptions }
