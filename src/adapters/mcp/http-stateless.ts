import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'
import { checkClientCapabilities, clientCapabilitiesMessage } from './client-capabilities.js'
import { skillMcpServerIdentity } from './create-skill-mcp-server.js'
import { serveListen } from './http-listen.js'
import type { HttpServeContext } from './http-session-start.js'
import { withThrowawaySession } from './http-throwaway-session.js'
import { discoverResult, isModernRevision, requestedRevision } from './protocol-revision.js'
import { checkRequestHeaders, headerMismatchError } from './request-headers.js'
import { acceptedAnswers, StatelessAnswer } from './stateless-answer.js'

/**
 * True for a POST without a session that states 2026-07-28 or later (in its
 * `_meta` envelope, or, for a notification, its `MCP-Protocol-Version`
 * header): the revision without `initialize` and without sessions.
 */
export function isStatelessRequest(req: IncomingMessage, parsed: unknown): boolean {
  if (req.method !== 'POST' || req.headers['mcp-session-id'] !== undefined) return false
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false
  // An initialize opens a session, whatever its envelope says.
  if (isInitializeRequest(parsed)) return false
  const header = req.headers['mcp-protocol-version']
  return isModernRevision(requestedRevision(parsed) ?? (typeof header === 'string' ? header : ''))
}

/**
 * Serves one 2026-07-28 request over HTTP, as that revision wants: on its
 * own. `server/discover` is answered from the server's identity;
 * `subscriptions/listen` opens a stream of change notices (`serveListen`); any other
 * request gets a session of its own (its own manager, counted against the
 * session limits while it runs), answered on the POST's response
 * (`StatelessAnswer`: JSON, or an SSE stream when the request makes progress
 * or log records), then closed. Nothing
 * outlives the request: a skill loaded by one request is not loaded for
 * the next (a client that needs loaded skills across calls uses 2025-11-25,
 * whose sessions keep them). A client that disconnects first ends the
 * session, and its call with it. A notification is accepted (202) and
 * dropped. Before any of this, the standard headers must agree with the
 * body (`checkRequestHeaders`): 400 with -32020 otherwise; then a request
 * must state valid client capabilities (`checkClientCapabilities`): 400
 * with -32602 otherwise.
 */
export async function serveStatelessRequest(
  ctx: HttpServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: unknown,
): Promise<void> {
  const mismatch = checkRequestHeaders(req, parsed as Record<string, unknown>)
  if (mismatch) {
    const id = isJSONRPCRequest(parsed) ? parsed.id : null
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end(JSON.stringify(headerMismatchError(id, mismatch)))
    return
  }
  if (!isJSONRPCRequest(parsed)) {
    res.writeHead(202).end()
    return
  }
  // Refused before a session is made for it: a malformed envelope is a bad request (HTTP 400).
  const declared = checkClientCapabilities(parsed)
  if (declared) {
    const error = { code: ErrorCode.InvalidParams, message: clientCapabilitiesMessage(declared) }
    return answer(res, { jsonrpc: '2.0', id: parsed.id, error }, 400)
  }
  if (parsed.method === 'subscriptions/listen') return serveListen(ctx, res, parsed)
  if (parsed.method === 'server/discover') {
    const result = discoverResult(skillMcpServerIdentity(ctx.sessionOptions))
    return answer(res, { jsonrpc: '2.0', id: parsed.id, result })
  }
  await withThrowawaySession(ctx, res, async ({ session, closed }) => {
    // A client that goes away is owed nothing: its call is aborted with the session.
    void closed.then(() => session.close()).catch(() => undefined)
    const transport = new StatelessAnswer(parsed, res, acceptedAnswers(req))
    await session.server.connect(transport)
    // A client gone (even before the call began) stops the wait; the call is aborted with the session.
    await Promise.race([transport.answered, closed])
  })
}

function answer(res: ServerResponse, message: JSONRPCMessage, status = 200): void {
  if (res.headersSent) return
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(message))
}
