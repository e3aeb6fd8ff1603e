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
