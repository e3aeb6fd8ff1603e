import { Server, type ServerOptions } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  type Implementation,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  McpError,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import type { SkillMcpServerIdentity } from './create-skill-mcp-server.js'
import {
  DiscoverRequestSchema,
  discoverResult,
  isModernRevision,
  requestedRevision,
  stampModernResult,
  unsupportedRevision,
} from './protocol-revision.js'

// What `McpError` puts before its message; the client's `McpError` adds it again.
const PREFIX = /^MCP error -?\d+: /

/**
 * An error answer for a request: JSON-RPC `code` and `message`. The message
 * goes on the wire as written (the client's SDK adds `MCP error <code>: `
 * once), so a client reads one prefix, not two.
 */
export function protocolError(code: ErrorCode, message: string): McpError {
  const error = new McpError(code, message)
  error.message = message
  return error
}

/** -32602 (invalid params) with `message`: what a client asked for cannot be answered. */
export function invalidParams(message: string): McpError {
  return protocolError(ErrorCode.InvalidParams, message)
}

function withoutPrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || typeof message.error?.message !== 'string') return message
  const text = message.error.message.replace(PREFIX, '')
  return text === message.error.message
    ? message
    : { ...message, error: { ...message.error, message: text } }
}

/**
 * The SDK's low-level `Server`, as every skillhost session's server (so each
 * rule here has one home):
 *
 * - Error answers carry their text once: an `McpError` thrown in a handler
 *   has `MCP error <code>: ` in its message, which the client's SDK adds
 *   again; the transport a `SkillServer` connects to sends it without.
 * - It speaks 2026-07-28 beside the revisions `initialize` negotiates: it
 *   answers `server/discover`; a request whose `_meta` states 2026-07-28 is
 *   served without a handshake and its result carries what that revision
 *   requires (`stampModernResult`); a request stating a revision it does
 *   not speak is answered -32022 with the supported ones. A 2025 client's
 *   traffic is untouched.
 */
export class SkillServer extends Server {
  readonly #serverInfo: Implementation

  constructor(serverInfo: Implementation, options: ServerOptions) {
    super(serverInfo, options)
    this.#serverInfo = serverInfo
    const identity = {
      serverInfo,
      capabilities: options.capabilities,
      instructions: options.instructions,
    } as SkillMcpServerIdentity
    this.setRequestHandler(DiscoverRequestSchema, () => discoverResult(identity))
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport)
    // Requests that stated 2026-07-28, by id, until answered: their results are stamped.
    const modern = new Map<RequestId, string>()
    transport.send = (message, options) => {
      let out = withoutPrefix(message)
      const id = 'id' in out && !('method' in out) ? out.id : undefined
      const method = id === undefined ? undefined : modern.get(id)
      if (id !== undefined && method !== undefined) {
        modern.delete(id)
        if (isJSONRPCResultResponse(out))
          out = { ...out, result: stampModernResult(method, this.#serverInfo, out.result) }
      }
      return send(out, options)
    }
    await super.connect(transport)
    const deliver = transport.onmessage
    transport.onmessage = (message, extra) => {
      const version = requestedRevision(message)
      if (version !== undefined && isJSONRPCRequest(message)) {
        const refusal = unsupportedRevision(message, version)
        if (refusal) {
          void send(refusal).catch((error: Error) => this.onerror?.(error))
          return
        }
        if (isModernRevision(version)) modern.set(message.id, message.method)
      }
      deliver?.(message, extra)
    }
  }
}
