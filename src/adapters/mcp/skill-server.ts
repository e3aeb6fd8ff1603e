import { Server, type ServerOptions } from '@modelcontextprotocol/sdk/server/index.js'
import type { AnyObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  type Implementation,
  type JSONRPCMessage,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import { checkClientCapabilities, clientCapabilitiesMessage } from './client-capabilities.js'
import type { SkillMcpServerIdentity } from './create-skill-mcp-server.js'
import {
  DiscoverRequestSchema,
  discoverResult,
  isModernRevision,
  PROTOCOL_VERSION_META_KEY,
  stampModernResult,
  UNSUPPORTED_PROTOCOL_VERSION,
  unsupportedRevision,
} from './protocol-revision.js'

// What `McpError` puts before its message; the client's `McpError` adds it again.
const PREFIX = /^MCP error -?\d+: /

/**
 * An error answer for a request: JSON-RPC `code` and `message`. The message
 * goes on the wire as written (the client's SDK adds `MCP error <code>: `
 * once), so a client reads one prefix, not two.
 */
export function protocolError(code: ErrorCode | number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data)
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
 *   not speak is answered -32022 with the supported ones, and one without
 *   valid client capabilities in its `_meta` -32602
 *   (`checkClientCapabilities`). Every handler is
 *   wrapped so (the SDK's own included), whenever its request arrives. A
 *   2025 client's traffic is untouched.
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

  override setRequestHandler<T extends AnyObjectSchema>(
    requestSchema: T,
    handler: Parameters<Server['setRequestHandler']>[1],
  ): void {
    const method = methodOf(requestSchema)
    super.setRequestHandler(requestSchema, async (request, extra) => {
      const version = extra._meta?.[PROTOCOL_VERSION_META_KEY]
      if (typeof version !== 'string') return handler(request, extra)
      const unsupported = unsupportedRevision(version)
      if (unsupported)
        throw protocolError(
          UNSUPPORTED_PROTOCOL_VERSION,
          'Unsupported protocol version',
          unsupported,
        )
      const declared = checkClientCapabilities(request)
      if (declared) throw invalidParams(clientCapabilitiesMessage(declared))
      const result = await handler(request, extra)
      if (!isModernRevision(version)) return result
      // Read here, not captured: the SDK registers its handlers before this class's fields exist.
      return stampModernResult(method, this.#serverInfo, result) as typeof result
    })
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport)
    transport.send = (message, options) => send(withoutPrefix(message), options)
    await super.connect(transport)
  }
}

/** The method literal of a request schema (the SDK refuses a schema without one). */
function methodOf(schema: AnyObjectSchema): string {
  const shape = (schema as { shape?: { method?: { value?: unknown } } }).shape
  const value = shape?.method?.value
  return typeof value === 'string' ? value : ''
}
