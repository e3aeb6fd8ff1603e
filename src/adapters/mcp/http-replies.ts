import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { renderError, SkillHostError } from '../../common/errors.js'

/** The sha256 digest of `text` (token comparison, session owners). */
export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

/** A JSON-RPC error reply with an HTTP status, unless the response has started. */
export function rpcError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/** Which server limit refused a request (`ServeMcpHttpOptions.onLimit`). */
export type HttpLimit =
  | 'sessions'
  | 'sessionsPerToken'
  | 'bodyBytes'
  | 'bodyBytesInFlight'
  | 'bodyTimeout'

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

/** How a request body is read: its size cap, its deadline, and the server's bytes in flight. */
export interface BodyLimits {
  /** Largest body, in bytes (413 past it). */
  readonly maxBytes: number
  /** Time from the first read to the body's end, in ms (408 past it). */
  readonly timeoutMs: number
  /** Body bytes every request of the server holds now, and the most it may (503 past it). */
  readonly inFlight: { used: number; readonly max: number }
}

/**
 * The request body as JSON within `limits`: 413 when it is (or declares
 * itself) larger than `maxBytes`, 503 when the server's bodies in flight
 * would pass their cap, 408 when it has not ended within `timeoutMs`, 400
 * when it is not JSON. Bytes count against `inFlight` until the body is
 * parsed or refused.
 */
export function readJson(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limits.maxBytes)
    return Promise.reject(tooLarge(limits.maxBytes))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const done = (err: unknown, value?: unknown): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onEnd)
      req.off('close', onClose)
      limits.inFlight.used -= size
      chunks.length = 0
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      limits.inFlight.used += chunk.length
      if (size > limits.maxBytes) done(tooLarge(limits.maxBytes))
      else if (limits.inFlight.used > limits.inFlight.max)
        done(
          new HttpRefusal(
            503,
            'Server busy: too many request bytes in flight',
            'bodyBytesInFlight',
            1,
          ),
        )
      else chunks.push(chunk)
    }
    const onEnd = (err?: unknown): void => {
      if (err) {
        done(err)
        return
      }
      try {
        done(undefined, JSON.parse(Buffer.concat(chunks).toString('utf8')))
      } catch {
        done(new HttpRefusal(400, 'Parse error: the body is not JSON'))
      }
    }
    const onClose = (): void => done(new HttpRefusal(400, 'The request body ended early'))
    const timer = setTimeout(
      () =>
        done(
          new HttpRefusal(
            408,
            `Request body not received within ${limits.timeoutMs} ms`,
            'bodyTimeout',
          ),
        ),
      limits.timeoutMs,
    )
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onEnd)
    req.on('close', onClose)
  })
}

const tooLarge = (max: number): HttpRefusal =>
  new HttpRefusal(413, `Request body larger than ${max} bytes`, 'bodyBytes')

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
