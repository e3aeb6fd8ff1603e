import type { IncomingMessage } from 'node:http'
import { requestedRevision, unsupportedRevision } from './protocol-revision.js'

/**
 * JSON-RPC code of 2026-07-28's `HeaderMismatch`: the standard request
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) missing, or
 * disagreeing with the JSON-RPC body. Answered with HTTP 400.
 */
export const HEADER_MISMATCH = -32020

/** Which body field `Mcp-Name` mirrors, per method (2026-07-28 Streamable HTTP, the `Required For` column). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

const SENTINEL_PREFIX = '=?base64?'
const SENTINEL_SUFFIX = '?='
/** Canonical base64 (padding included), as the encoding rule writes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
/** A field value the client may send as is: visible ASCII, space and tab. Anything else must be base64-wrapped. */
const PLAIN = /^[\t\x20-\x7e]*$/

/** Why a 2026-07-28 request over HTTP is refused -32020: the header at fault, never its value. */
export interface HeaderMismatch {
  readonly header: 'MCP-Protocol-Version' | 'Mcp-Method' | 'Mcp-Name'
  readonly problem: 'missing' | 'mismatch' | 'invalid encoding'
}

/**
 * Checks the standard headers of a 2026-07-28 request POSTed over HTTP
 * against its body, as that revision's Streamable HTTP binding requires:
 * `MCP-Protocol-Version` and `Mcp-Method` on every request and equal to the
 * body's revision and method; `Mcp-Name` on `tools/call`, `prompts/get`,
 * `resources/read` (and `tasks/*`), equal to the body's name, URI or task
 * id once OWS is stripped and a `=?base64?…?=` value decoded. A header
 * that disagrees is refused on a notification too; presence is required of
 * requests only, and only for a revision served (a request for another
 * revision is answered -32022 as before). Applied only to requests that
 * state 2026-07-28: a 2025 client's headers are not looked at. Returns
 * undefined when the request may be served.
 */
export function checkRequestHeaders(
  req: IncomingMessage,
  body: { method?: unknown; params?: unknown; id?: unknown },
): HeaderMismatch | undefined {
  const version = header(req, 'mcp-protocol-version')
  const method = header(req, 'mcp-method')
  const claimed = requestedRevision(body)
  if (version !== undefined && claimed !== undefined && version !== claimed)
    return { header: 'MCP-Protocol-Version', problem: 'mismatch' }
  if (method !== undefined && method !== body.method)
    return { header: 'Mcp-Method', problem: 'mismatch' }
  if (typeof body.method !== 'string' || body.id === undefined) return undefined
  if (claimed !== undefined && unsupportedRevision(claimed)) return undefined
  if (version === undefined) return { header: 'MCP-Protocol-Version', problem: 'missing' }
  if (method === undefined) return { header: 'Mcp-Method', problem: 'missing' }
  return checkName(req, body.method, body.params)
}

function checkName(
  req: IncomingMessage,
  method: string,
  params: unknown,
): HeaderMismatch | undefined {
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined
  if (field === undefined) return undefined
  const raw =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? (params as Record<string, unknown>)[field]
      : undefined
  const expected = typeof raw === 'string' ? raw : undefined
  const given = header(req, 'mcp-name')
  if (given === undefined)
    return expected === undefined ? undefined : { header: 'Mcp-Name', problem: 'missing' }
  const decoded = decodeValue(given.replace(/^[\t ]+|[\t ]+$/g, ''))
  if (decoded === undefined) return { header: 'Mcp-Name', problem: 'invalid encoding' }
  if (expected !== undefined && decoded !== expected)
    return { header: 'Mcp-Name', problem: 'mismatch' }
  return undefined
}

/**
 * A header value as the client meant it: plain ASCII as is, a
 * `=?base64?…?=` sentinel decoded as UTF-8 (fatal on bad bytes); undefined
 * for anything else (raw non-ASCII bytes, bad base64), which the encoding
 * rule does not allow.
 */
function decodeValue(value: string): string | undefined {
  if (!PLAIN.test(value)) return undefined
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length)
  if (!BASE64.test(b64)) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'))
  } catch {
    return undefined
  }
}

/** One header's value; a header sent twice (Node joins them with ", ") is taken as sent. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value : value?.join(', ')
}

/** The -32020 error object: a fixed message naming the header, never echoing what the client sent. */
export function headerMismatchError(
  id: unknown,
  mismatch: HeaderMismatch,
): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string; data: HeaderMismatch } } {
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: {
      code: HEADER_MISMATCH,
      message: `Bad Request: the ${mismatch.header} header is ${mismatch.problem === 'missing' ? 'missing' : mismatch.problem === 'mismatch' ? 'not what the body says' : 'not validly encoded'}.`,
      data: mismatch,
    },
  }
}
