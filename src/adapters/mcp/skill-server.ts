import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js'

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
 * The SDK's low-level `Server`, whose error answers carry their text once:
 * an `McpError` thrown in a handler (ours or the SDK's own, such as
 * "Invalid tools/call request") has `MCP error <code>: ` in its message,
 * which the client's SDK adds again; the transport a `SkillServer`
 * connects to sends error messages without it. Every skillhost session's
 * server is one, so the rule has one home.
 */
export class SkillServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport)
    transport.send = (message, options) => send(withoutPrefix(message), options)
    await super.connect(transport)
  }
}
