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

/** The request body as JSON, at most `max` bytes (413 past it, 400 when not JSON). */
export async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
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
