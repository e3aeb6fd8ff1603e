import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'

/**
 * The client's requests a server has not answered yet, counted on the
 * transport (what came in, what went out), so a session whose input ended
 * can wait for its answers before it closes. A request the client cancels
 * (`notifications/cancelled`) is settled too: the server sends it no answer.
 */
export class PendingRequests {
  readonly #ids = new Set<RequestId>()
  #waiters: (() => void)[] = []

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#ids.size
  }

  /** Notes a message from the client: a request is pending, a cancellation settles its request. */
  received(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) this.#ids.add(message.id)
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId
      if (typeof id === 'string' || typeof id === 'number') this.settled(id)
    }
  }

  /** Notes a message to the client: an answer (result or error) settles its request. */
  sent(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && message.id !== undefined)
      this.settled(message.id)
  }

  /** The request `id` needs no answer any more. */
  settled(id: RequestId): void {
    this.#ids.delete(id)
    if (this.#ids.size > 0) return
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }

  /**
   * Resolves once every pending request is answered, or after `maxMs`
   * (a call that never ends must not keep a closed session alive).
   */
  drained(maxMs: number): Promise<void> {
    if (this.#ids.size === 0) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, maxMs)
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
      this.#waiters.push(done)
    })
  }
}
