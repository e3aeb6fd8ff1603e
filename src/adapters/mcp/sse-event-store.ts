import { randomBytes } from 'node:crypto'
import type {
  EventId,
  EventStore,
  StreamId,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'

/**
 * The bounds of one session's SSE event store, and the `retry:` the priming
 * event of each POST stream suggests. An event counts its JSON bytes; the
 * oldest events of a stream go first when it is past its bounds, the oldest
 * streams' events first when the session is past its own.
 */
export const SSE_EVENT_LIMITS: SseEventLimits = {
  eventsPerStream: 256,
  bytesPerStream: 512 * 1024,
  eventsPerSession: 1024,
  // At most 256 MiB over `SERVE_HTTP_LIMITS.maxSessions` sessions.
  bytesPerSession: 1024 * 1024,
  retryMs: 1_000,
}

/** Bounds of an `SseEventStore` (see `SSE_EVENT_LIMITS`). */
export interface SseEventLimits {
  readonly eventsPerStream: number
  readonly bytesPerStream: number
  readonly eventsPerSession: number
  readonly bytesPerSession: number
  /** The `retry:` of each priming event, in ms. */
  readonly retryMs: number
}

interface Stored {
  readonly seq: number
  readonly message: JSONRPCMessage
  readonly bytes: number
}

interface StreamLog {
  readonly no: number
  readonly events: Stored[]
  bytes: number
  /** The newest seq evicted from this stream: a resume from before it would miss events. */
  lost: number
}

/**
 * One MCP session's SSE events, kept in this process's memory so a client
 * that lost a stream can resume it with `Last-Event-ID` (the SDK's
 * `EventStore` contract). Event ids are `<store>.<stream>.<seq>`, `<store>`
 * random per store: an id from another process or an earlier session is
 * unknown here, as is one whose event was evicted or whose stream was
 * forgotten, and the SDK answers it 400 (JSON-RPC -32000). Bounded in
 * events and bytes per stream and per session (`SSE_EVENT_LIMITS`);
 * `clear()` when the session ends drops everything and refuses more.
 */
export class SseEventStore implements EventStore {
  readonly #key = randomBytes(6).toString('base64url')
  readonly #limits: SseEventLimits
  readonly #streams = new Map<StreamId, StreamLog>()
  readonly #byNo = new Map<number, StreamId>()
  readonly #requestStream = new Map<RequestId, StreamId>()
  #handing: RequestId[] | undefined
  #events = 0
  #bytes = 0
  #nextNo = 0
  #nextSeq = 0
  #cleared = false

  constructor(limits: SseEventLimits = SSE_EVENT_LIMITS) {
    this.#limits = limits
  }

  /** Events and bytes held now, and streams with a log (for leak checks). */
  get counts(): { readonly streams: number; readonly events: number; readonly bytes: number } {
    return { streams: this.#streams.size, events: this.#events, bytes: this.#bytes }
  }

  /**
   * Runs `hand` (the transport taking a POST of one request `id`): the
   * stream the transport opens for it, named by its priming event stored
   * while `hand` runs synchronously, is remembered as that request's, so
   * a cancellation can forget it (`forgetRequest`).
   */
  handing<T>(id: RequestId | undefined, hand: () => T): T {
    this.#handing = id === undefined ? undefined : [id]
    try {
      return hand()
    } finally {
      this.#handing = undefined
    }
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    let log = this.#streams.get(streamId)
    if (!log) {
      log = { no: this.#nextNo++, events: [], bytes: 0, lost: -1 }
      if (!this.#cleared) {
        this.#streams.set(streamId, log)
        this.#byNo.set(log.no, streamId)
      }
      for (const id of this.#handing ?? []) this.#requestStream.set(id, streamId)
      this.#handing = undefined
    }
    const seq = this.#nextSeq++
    const bytes = JSON.stringify(message).length
    if (!this.#cleared) {
      log.events.push({ seq, message, bytes })
      log.bytes += bytes
      this.#events += 1
      this.#bytes += bytes
      this.#trim(log)
    }
    if ('id' in message && !('method' in message) && message.id !== undefined)
      this.#requestStream.delete(message.id)
    return `${this.#key}.${log.no}.${seq}`
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#find(eventId)?.streamId
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const found = this.#find(lastEventId)
    if (!found) throw new Error('unknown event id')
    const { streamId, log, seq } = found
    // A copy: sending may store (and evict) events of this stream meanwhile.
    for (const event of [...log.events])
      if (event.seq > seq && Object.keys(event.message).length > 0)
        await send(`${this.#key}.${log.no}.${event.seq}`, event.message)
    return streamId
  }

  /**
   * Forgets the stream of request `id` (a cancelled call's: nothing on it
   * is owed any more) and returns whether there was one.
   */
  forgetRequest(id: RequestId): boolean {
    const streamId = this.#requestStream.get(id)
    this.#requestStream.delete(id)
    if (streamId === undefined) return false
    this.#drop(streamId)
    return true
  }

  /** The session ended: every event goes, and none is kept after. */
  clear(): void {
    this.#cleared = true
    for (const streamId of [...this.#streams.keys()]) this.#drop(streamId)
    this.#requestStream.clear()
  }

  #find(eventId: EventId): { streamId: StreamId; log: StreamLog; seq: number } | undefined {
    const match = /^([A-Za-z0-9_-]{8})\.(\d{1,15})\.(\d{1,15})$/.exec(eventId)
    if (!match || match[1] !== this.#key) return undefined
    const streamId = this.#byNo.get(Number(match[2]))
    const log = streamId === undefined ? undefined : this.#streams.get(streamId)
    const seq = Number(match[3])
    // A resume from before an evicted event would miss it: refused, never partial.
    if (!log || streamId === undefined || seq < log.lost) return undefined
    return { streamId, log, seq }
  }

  #drop(streamId: StreamId): void {
    const log = this.#streams.get(streamId)
    if (!log) return
    this.#streams.delete(streamId)
    this.#byNo.delete(log.no)
    this.#events -= log.events.length
    this.#bytes -= log.bytes
  }

  /** Evicts the oldest events: of `log` past the stream's bounds, then of the oldest streams. */
  #trim(log: StreamLog): void {
    const l = this.#limits
    while (
      log.events.length > 1 &&
      (log.events.length > l.eventsPerStream || log.bytes > l.bytesPerStream)
    )
      this.#shift(log)
    for (const [streamId, oldest] of this.#streams) {
      if (this.#events <= l.eventsPerSession && this.#bytes <= l.bytesPerSession) break
      while (
        oldest.events.length > 0 &&
        (this.#events > l.eventsPerSession || this.#bytes > l.bytesPerSession)
      )
        this.#shift(oldest)
      if (oldest.events.length === 0) this.#drop(streamId)
    }
  }

  #shift(log: StreamLog): void {
    const gone = log.events.shift()
    if (!gone) return
    log.lost = gone.seq
    log.bytes -= gone.bytes
    this.#events -= 1
    this.#bytes -= gone.bytes
  }
}
