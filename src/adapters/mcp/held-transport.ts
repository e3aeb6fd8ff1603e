import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import type { SkillMcpServerIdentity } from './create-skill-mcp-server.js'
import { PendingRequests } from './pending-requests.js'
import { discoverResult, legacyRevision } from './protocol-revision.js'

/** JSON-RPC's "internal error": what held requests get when the server never comes. */
const INTERNAL_ERROR = -32603

/**
 * A transport that talks to the client before the server exists. Discovery
 * over a big corpus takes seconds to minutes, and MCP clients give up on an
 * `initialize` that takes longer than their timeout (60 s for the official
 * client), so the session's first exchange cannot wait for it.
 *
 * `open()` starts the inner transport at once. Until a server connects
 * (`start()`, called by `Server.connect`): `initialize` is answered from
 * `identity` (the same the server will announce), `server/discover` (a
 * 2026-07-28 client's first request) from the same, and `ping` with an
 * empty result; every other message is held, in order. When the server connects it
 * receives, before anything else, the client's own `initialize` (its answer
 * is dropped: the client already has one) and `notifications/initialized`,
 * then the held messages, then everything live. `fail()` answers each held
 * request with an internal error and closes, for a server that never comes.
 * `pending` counts the client's requests not answered yet, so a session
 * whose input ended can answer them all before it closes.
 */
export class HeldTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  readonly #inner: Transport
  readonly #identity: SkillMcpServerIdentity
  #held: JSONRPCMessage[] = []
  #initialize: JSONRPCMessage | undefined
  #initialized: JSONRPCMessage | undefined
  // The id of the replayed initialize, whose second answer is dropped.
  #answered: RequestId | undefined
  #connected = false
  #closed = false
  /** The client's requests not answered yet (held or in the server's hands). */
  readonly pending = new PendingRequests()

  constructor(inner: Transport, identity: SkillMcpServerIdentity) {
    this.#inner = inner
    this.#identity = identity
  }

  /** Starts reading from the client now, holding what the server must answer. */
  async open(): Promise<void> {
    this.#inner.onmessage = (message) => this.#receive(message)
    this.#inner.onerror = (error) => this.onerror?.(error)
    this.#inner.onclose = () => {
      this.#closed = true
      this.onclose?.()
    }
    await this.#inner.start()
  }

  /** Called by `Server.connect`: replays the handshake and the held messages, then passes through. */
  async start(): Promise<void> {
    if (this.#connected) throw new Error('HeldTransport already started')
    this.#connected = true
    const replay = [this.#initialize, this.#initialized, ...this.#held].filter(
      (m): m is JSONRPCMessage => m !== undefined,
    )
    this.#held = []
    for (const message of replay) this.onmessage?.(message)
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (
      this.#answered !== undefined &&
      'id' in message &&
      message.id === this.#answered &&
      !('method' in message)
    ) {
      this.#answered = undefined
      return
    }
    await this.#reply(message)
  }

  /** Sends to the client; the request a message answers is settled once it is written. */
  #reply(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message).finally(() => this.pending.sent(message))
  }

  async close(): Promise<void> {
    await this.#inner.close()
  }

  /** The server will never connect: each held request gets an internal error, then the transport closes. */
  async fail(message: string): Promise<void> {
    const held = this.#held
    this.#held = []
    for (const m of held) {
      if (!isJSONRPCRequest(m)) continue
      await this.#reply({
        jsonrpc: '2.0',
        id: m.id,
        error: { code: INTERNAL_ERROR, message },
      }).catch(() => undefined)
    }
    if (!this.#closed) await this.close()
  }

  #receive(message: JSONRPCMessage): void {
    this.pending.received(message)
    if (this.#connected) {
      this.onmessage?.(message)
      return
    }
    if (isJSONRPCRequest(message) && message.method === 'initialize' && !this.#initialize) {
      this.#initialize = message
      this.#answered = message.id
      void this.#reply({ jsonrpc: '2.0', id: message.id, result: this.#initializeResult(message) })
      return
    }
    if (isJSONRPCRequest(message) && message.method === 'ping') {
      void this.#reply({ jsonrpc: '2.0', id: message.id, result: {} })
      return
    }
    if (isJSONRPCRequest(message) && message.method === 'server/discover') {
      void this.#reply({ jsonrpc: '2.0', id: message.id, result: discoverResult(this.#identity) })
      return
    }
    if (
      !('id' in message) &&
      'method' in message &&
      message.method === 'notifications/initialized'
    ) {
      this.#initialized = message
      return
    }
    this.#held.push(message)
  }

  // What the SDK's Server answers: the client's version when supported, else the latest.
  #initializeResult(request: JSONRPCMessage): Record<string, unknown> {
    const params = 'params' in request ? (request.params as { protocolVersion?: unknown }) : {}
    const protocolVersion = legacyRevision(params?.protocolVersion)
    const { serverInfo, capabilities, instructions } = this.#identity
    return { protocolVersion, capabilities, serverInfo, instructions }
  }
}
