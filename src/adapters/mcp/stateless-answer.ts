import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import { SSE_EVENT_LIMITS } from './sse-event-store.js'

/** What a client's `Accept` header admits for the answer to its POST. */
export interface AcceptedAnswers {
  readonly json: boolean
  readonly sse: boolean
}

/** Reads `Accept` as Streamable HTTP uses it: `application/json`, `text/event-stream`, or a wildcard for both. */
export function acceptedAnswers(req: IncomingMessage): AcceptedAnswers {
  const accept = String(req.headers.accept ?? '').toLowerCase()
  const any = accept === '' || accept.includes('*/*')
  return {
    json: any || accept.includes('application/json'),
    sse: accept.includes('text/event-stream'),
  }
}

/**
 * One 2026-07-28 request's transport over HTTP: the request in, then what
 * the server sends for it out on the POST's own response. Its answer alone
 * goes out as JSON; once the server sends a notification for the request
 * (progress, a log record its `_meta` level admits) and the client accepts
 * `text/event-stream`, the response becomes an SSE stream carrying those
 * notifications in order, then the answer, then it ends. A client that
 * accepts only SSE gets the answer on a stream too. The first event carries
 * `retry:` (`SSE_EVENT_LIMITS.retryMs`, as on a 2025 session's streams);
 * no event has an `id:`, since nothing of a stateless request outlives it
 * to resume from. Messages not about the request (a change notice of the
 * request's own session) have no stream here and are dropped.
 */
export class StatelessAnswer implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Settles once the answer went out (or the response was already gone). */
  readonly answered: Promise<void>
  readonly #request: JSONRPCRequest
  readonly #res: ServerResponse
  readonly #accepts: AcceptedAnswers
  #streaming = false
  #done = false
  #resolve: () => void = () => undefined

  constructor(request: JSONRPCRequest, res: ServerResponse, accepts: AcceptedAnswers) {
    this.#request = request
    this.#res = res
    this.#accepts = accepts
    this.answered = new Promise((resolve) => {
      this.#resolve = resolve
    })
  }

  async start(): Promise<void> {
    queueMicrotask(() => this.onmessage?.(this.#request))
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#done) return
    if ('id' in message && !('method' in message)) {
      if (message.id === this.#request.id) this.#finish(message)
      return
    }
    // Only what the server sends for this request belongs on its stream.
    if (options?.relatedRequestId !== this.#request.id || !this.#accepts.sse) return
    this.#event(message)
  }

  async close(): Promise<void> {
    this.#finish({
      jsonrpc: '2.0',
      id: this.#request.id,
      error: { code: -32603, message: 'The server closed before answering.' },
    })
    this.onclose?.()
  }

  #finish(message: JSONRPCMessage): void {
    if (this.#done) return
    this.#done = true
    const res = this.#res
    if (!res.destroyed && !res.writableEnded) {
      if (this.#streaming || !this.#accepts.json) this.#event(message)
      else {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write(JSON.stringify(message))
      }
      res.end()
    }
    this.#resolve()
  }

  /** Writes one SSE event, opening the stream first when this is its first. */
  #event(message: JSONRPCMessage): void {
    const res = this.#res
    if (res.destroyed || res.writableEnded) return
    let retry = ''
    if (!this.#streaming) {
      this.#streaming = true
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      })
      retry = `retry: ${SSE_EVENT_LIMITS.retryMs}\n`
    }
    res.write(`${retry}event: message\ndata: ${JSON.stringify(message)}\n\n`)
  }
}
