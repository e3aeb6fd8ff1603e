/**
 * The JSON text of an MCP `initialize` request (id 1, protocol 2025-03-26,
 * no capabilities) from a client named `clientName`: the one home of the
 * request the HTTP suites send by hand.
 */
export function initializeBody(clientName = 't'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    },
  })
}

/**
 * POSTs `body` (an `initialize` by default) to `url` as an MCP client does:
 * JSON, accepting JSON or an event stream, with `authorization` when given.
 */
export function postMcp(
  url: URL,
  authorization?: string,
  body = initializeBody(),
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body,
  })
}

/** The `_meta` envelope every 2026-07-28 request carries: its revision and (empty) client capabilities. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
} as const

/** How `modernRequest` may differ from a plain call: its id, what it accepts, an abort. */
export interface ModernRequestOptions {
  id?: string | number
  accept?: string
  signal?: AbortSignal
}

/**
 * A raw 2026-07-28 POST of `method` as a client we did not write sends it:
 * the standard headers agreeing with the body (`Mcp-Name` from
 * `params.name`), and `params._meta` laid over `MODERN_ENVELOPE`. The one
 * home of the stateless request the HTTP suites build by hand.
 */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): RequestInit {
  const meta = params._meta as Record<string, unknown> | undefined
  return {
    method: 'POST',
    ...(options.signal && { signal: options.signal }),
    headers: {
      'content-type': 'application/json',
      accept: options.accept ?? 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: { ...MODERN_ENVELOPE, ...meta } },
    }),
  }
}
