import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import {
  guardSessionStore,
  isSessionStoreFailure,
  sessionStoreFailed,
} from '../../common/internal.js'
import { answerProbe, type HttpProbeConfig } from './http-probes.js'
import { HttpRefusal, restoreError, rpcError, sha256, storeUnavailable } from './http-replies.js'
import { deleteStoredSession, openHttpSession, restoreHttpSession } from './http-session-open.js'
import type { HttpServeContext } from './http-session-start.js'
import type { HttpSessionEntry } from './http-session-table.js'
import { isStatelessRequest, serveStatelessRequest } from './http-stateless.js'
import { type BodyLimits, readJsonBody } from './read-json-body.js'

/** Session ids this server accepts from a client: what `randomUUID` makes, and nothing longer. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What the request handler checks before any session is involved. */
export interface HttpGateConfig {
  readonly path: string
  /** The sha256 of the bearer token, when one is required. */
  readonly token: Buffer | undefined
  /** Accepted `Host` values, once the port is known; undefined = unchecked. */
  readonly allowedHosts: () => ReadonlySet<string> | undefined
  readonly body: BodyLimits
  /** `/healthz`, `/readyz` and `/metrics` (`answerProbe`). */
  readonly probes: HttpProbeConfig
}

/**
 * The request handler of `serveMcpHttp`, in its stages: the probe paths
 * (`answerProbe`, their own credential rule), the credential, the path and
 * `Host`, the body (bounded), then the session: held here, restored from the
 * store, opened by an initialize, or (2026-07-28, no session) one of the
 * request's own. A session store that
 * fails at any stage answers 503 `E_SESSION_STORE_FAILED` and ends nothing.
 */
export function httpRequestHandler(
  ctx: HttpServeContext,
  gate: HttpGateConfig,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const credited = !gate.token || authorized(req, gate.token)
    const url = new URL(req.url ?? '/', 'http://localhost')
    const allowed = gate.allowedHosts()
    const hostAllowed = !allowed || allowed.has(String(req.headers.host ?? '').toLowerCase())
    // The probe paths have their own credential rule; never a session.
    if (url.pathname !== gate.path && hostAllowed)
      if (await answerProbe(req, res, url.pathname, gate.probes, credited)) return
    if (!credited) {
      res.setHeader('www-authenticate', 'Bearer')
      return rpcError(res, 401, 'Unauthorized')
    }
    if (url.pathname !== gate.path) return rpcError(res, 404, 'Not found')
    if (!hostAllowed) return rpcError(res, 403, 'Host not allowed')
    const sessionId = req.headers['mcp-session-id']
    const parsed = req.method === 'POST' ? await readJsonBody(req, gate.body) : undefined
    try {
      await route(ctx, req, res, sessionId, parsed)
    } catch (err) {
      if (!isSessionStoreFailure(err)) throw err
      const id = typeof sessionId === 'string' ? { sessionId } : {}
      ctx.onSharedError?.({ ...id, error: err })
      storeUnavailable(res, parsed, err)
    }
  }
}

function authorized(req: IncomingMessage, want: Buffer): boolean {
  const header = String(req.headers.authorization ?? '')
  const given = sha256(header.startsWith('Bearer ') ? header.slice(7) : '')
  return header.startsWith('Bearer ') && timingSafeEqual(given, want)
}

async function route(
  ctx: HttpServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  sessionId: string | string[] | undefined,
  parsed: unknown,
): Promise<void> {
  let entry = typeof sessionId === 'string' ? ctx.table.get(sessionId) : undefined
  if (!entry && typeof sessionId === 'string' && ctx.store && SESSION_ID.test(sessionId)) {
    if (req.method === 'DELETE') return deleteStoredSession(ctx, sessionId, res)
    try {
      entry = await restoreHttpSession(ctx, sessionId)
    } catch (err) {
      if (err instanceof HttpRefusal || isSessionStoreFailure(err)) throw err
      ctx.onSharedError?.({ sessionId, error: err })
      return restoreError(res, parsed, err)
    }
  }
  if (entry && typeof sessionId === 'string')
    return serveHeld(ctx, entry, sessionId, req, res, parsed)
  if (sessionId !== undefined) return rpcError(res, 404, 'Session not found')
  if (isStatelessRequest(req, parsed)) return serveStatelessRequest(ctx, req, res, parsed)
  if (req.method !== 'POST' || !isInitializeRequest(parsed))
    return rpcError(res, 400, 'No session: send initialize first')
  return openHttpSession(ctx, req, res, parsed)
}

/**
 * A request of a session held here. With a store: the stored revision is
 * checked first, for every method (a session deleted elsewhere is 404 and
 * ends here), and a DELETE succeeds only once the store removed the session;
 * a store failure throws and the session stays, here and stored.
 */
async function serveHeld(
  ctx: HttpServeContext,
  entry: HttpSessionEntry,
  id: string,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: unknown,
): Promise<void> {
  const stream = req.method === 'GET'
  entry.inFlight += 1
  if (stream) entry.streams += 1
  res.once('close', () => {
    entry.inFlight -= 1
    if (stream) entry.streams -= 1
    entry.lastSeen = Date.now()
  })
  if (entry.shared) {
    let state: 'ok' | 'gone'
    try {
      state = await entry.shared.sync({ claim: true })
      // A call here sees what another process stored for the session meanwhile.
      if (state === 'ok' && req.method === 'POST') await entry.shared.pullWorkspace()
    } catch (err) {
      const failure = sessionStoreFailed('revision', err)
      if (isSessionStoreFailure(failure)) throw failure
      // The session could not catch up (a skill version gone): said, and kept.
      ctx.onSharedError?.({ sessionId: id, error: err })
      return restoreError(res, parsed, failure)
    }
    if (state === 'gone') {
      ctx.table.end(id)
      return rpcError(res, 404, 'Session not found')
    }
  }
  const { store } = ctx
  if (req.method === 'DELETE' && store) await guardSessionStore('remove', () => store.remove(id))
  await entry.events.handing(soleRequestId(parsed), () =>
    entry.transport.handleRequest(req, res, parsed),
  )
}

/** The id of a POST body's one request; a batch, a notification or a response has none. */
function soleRequestId(parsed: unknown): string | number | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
  const { id, method } = parsed as { id?: unknown; method?: unknown }
  if (typeof method !== 'string') return undefined
  return typeof id === 'string' || typeof id === 'number' ? id : undefined
}
