import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { renderError, SkillHostError } from '../../common/index.js'

/** The sha256 digest of `text` (token comparison, session owners). */
export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

/** A JSON-RPC error reply with an HTTP status, unless the response has started. */
export function rpcError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/**
 * Resolves when the connection `res` answers on is done: the client went
 * away, or the response ended. At once when that already happened, so work
 * begun after an await (a session's manager) is never left waiting on a
 * `close` that fired before it listened.
 */
export function responseClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableEnded || res.socket?.destroyed === true) return Promise.resolve()
  return new Promise((resolve) => res.once('close', () => resolve()))
}

/** Which server limit refused a request (`ServeMcpHttpOptions.onLimit`). */
export type HttpLimit =
  | 'sessions'
  | 'sessionsPerToken'
  | 'bodyBytes'
  | 'bodyBytesInFlight'
  | 'bodyTimeout'
  | 'bodyShape'

/**
 * A request the server refuses for a limit: the HTTP status, the message the
 * client reads, and `Retry-After` seconds when waiting helps.
 */
export class HttpRefusal extends Error {
  readonly status: number
  readonly limit: HttpLimit | undefined
  readonly retryAfterSeconds: number | undefined
  constructor(status: number, message: string, limit?: HttpLimit, retryAfterSeconds?: number) {
    super(message)
    this.status = status
    this.limit = limit
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/**
 * Answers a refused request and closes its connection (the rest of its body
 * is never read), with `Retry-After` when the refusal has one.
 */
export function refuse(res: ServerResponse, refusal: HttpRefusal): void {
  if (res.headersSent) return
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    connection: 'close',
  }
  if (refusal.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(refusal.retryAfterSeconds)
  res.writeHead(refusal.status, headers)
  res.end(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null }),
  )
}

/** A JSON-RPC error answering `body` (when it is a request) with a SkillHostError's code and data. */
export function restoreError(res: ServerResponse, body: unknown, err: unknown): void {
  if (res.headersSent) return
  const id = (body as { id?: unknown } | undefined)?.id
  const code = SkillHostError.isInstance(err) ? err.code : 'E_INTERNAL'
  const data = SkillHostError.isInstance(err) ? { code, ...err.data } : { code }
  const status = SkillHostError.isInstance(err) ? err.status : 500
  const isRequest = typeof id === 'string' || typeof id === 'number'
  res.writeHead(isRequest ? 200 : status, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: renderError(err), data },
      id: isRequest ? id : null,
    }),
  )
}

/**
 * 503 with `Retry-After` for a session store that is unavailable
 * (`E_SESSION_STORE_FAILED`): a JSON-RPC error answering `body` when it is
 * a request, with the code and operation in `data`. Only the model-safe
 * message goes out; the driver's error stays in the error's `cause`.
 */
export function storeUnavailable(res: ServerResponse, body: unknown, err: SkillHostError): void {
  if (res.headersSent) return
  const id = (body as { id?: unknown } | undefined)?.id
  const isRequest = typeof id === 'string' || typeof id === 'number'
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: renderError(err), data: { code: err.code, ...err.data } },
      id: isRequest ? id : null,
    }),
  )
}
