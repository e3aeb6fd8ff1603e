import { IncomingMessage, ServerResponse } from 'node:http'
import { Duplex } from 'node:stream'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

/** Hands `body` to `transport` as a POST from nowhere and waits for its (discarded) response. */
async function post(
  transport: StreamableHTTPServerTransport,
  body: unknown,
  headers: Record<string, string>,
): Promise<number> {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback()
    },
  })
  const req = new IncomingMessage(socket as never)
  req.method = 'POST'
  req.url = '/mcp'
  req.headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    host: 'localhost',
    ...headers,
  }
  req.rawHeaders = Object.entries(req.headers).flatMap(([k, v]) => [k, String(v)])
  req.push(null)
  const res = new ServerResponse(req)
  res.assignSocket(socket as never)
  const finished = new Promise<void>((resolve) => {
    res.once('finish', resolve)
    res.once('close', resolve)
  })
  try {
    await transport.handleRequest(req, res, body)
    await finished
    return res.statusCode
  } finally {
    socket.destroy()
  }
}

/**
 * Makes a fresh transport (built with `sessionIdGenerator: () => sessionId`)
 * and its connected server accept an existing session, through the SDK's
 * public API only: the session's original `initialize` request is handed to
 * the transport (so the server learns the client's capabilities and protocol
 * version, and the transport takes the session id), then
 * `notifications/initialized`; both responses are discarded. Throws when the
 * transport refuses either.
 */
export async function replayInitialize(
  transport: StreamableHTTPServerTransport,
  initialize: unknown,
  sessionId: string,
): Promise<void> {
  const status = await post(transport, initialize, {})
  if (status !== 200 || transport.sessionId !== sessionId)
    throw new Error(`the transport refused the stored initialize request (HTTP ${status})`)
  const done = await post(
    transport,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    // No protocol-version header: the transport then assumes its default,
    // whatever version the replayed initialize negotiated.
    { 'mcp-session-id': sessionId },
  )
  if (done !== 202)
    throw new Error(`the transport refused notifications/initialized (HTTP ${done})`)
}
