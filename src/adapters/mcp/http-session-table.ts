import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { SkillManager } from '../../manager/index.js'
import type { SkillMcpSession } from './create-skill-mcp-server.js'
import { HttpRefusal } from './http-replies.js'
import type { ServeMcpHttpOptions } from './serve-http-options.js'
import type { SharedSession } from './shared-session.js'
import type { SseEventStore } from './sse-event-store.js'

/** One session this process holds: its transport, server, manager and traffic. */
export interface HttpSessionEntry {
  readonly transport: StreamableHTTPServerTransport
  readonly session: SkillMcpSession
  readonly manager: SkillManager
  readonly shared: SharedSession | undefined
  /** Its SSE events, for resumption; cleared when the session ends. */
  readonly events: SseEventStore
  lastSeen: number
  /** Requests of the session being answered now (an open notification stream counts). */
  inFlight: number
  /** Open notification streams (GET), which the stored revision is checked for while they last. */
  streams: number
  /** The credential that opened it (a digest), for the per-token cap. */
  readonly owner: string
}

/**
 * The sessions this process holds, and the admission that bounds them: a
 * session being opened or restored counts against `maxSessions` and the
 * per-credential cap before it is registered, so a burst of initializes
 * cannot pass them together.
 */
export class HttpSessionTable {
  readonly #entries = new Map<string, HttpSessionEntry>()
  readonly #opening = new Map<string, number>()
  readonly #max: number
  readonly #maxPerOwner: number
  readonly #onSession: ServeMcpHttpOptions['onSession']

  constructor(max: number, maxPerOwner: number, onSession: ServeMcpHttpOptions['onSession']) {
    this.#max = max
    this.#maxPerOwner = maxPerOwner
    this.#onSession = onSession
  }

  get size(): number {
    return this.#entries.size
  }

  get(id: string): HttpSessionEntry | undefined {
    return this.#entries.get(id)
  }

  entries(): [string, HttpSessionEntry][] {
    return [...this.#entries]
  }

  /** Reserves room for one more session of `owner`, or throws the 503 refusal; call the result once done. */
  admit(owner: string): () => void {
    let total = this.#entries.size
    for (const n of this.#opening.values()) total += n
    if (total >= this.#max)
      throw new HttpRefusal(503, `Too many open sessions (at most ${this.#max})`, 'sessions', 30)
    if (this.#countOf(owner) >= this.#maxPerOwner)
      throw new HttpRefusal(
        503,
        `Too many open sessions for this credential (at most ${this.#maxPerOwner})`,
        'sessionsPerToken',
        30,
      )
    this.#opening.set(owner, (this.#opening.get(owner) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.#opening.get(owner) ?? 1) - 1
      if (left > 0) this.#opening.set(owner, left)
      else this.#opening.delete(owner)
    }
  }

  /** Serves `entry` under `id` from now on. */
  register(id: string, entry: HttpSessionEntry, kind: 'opened' | 'restored'): void {
    entry.lastSeen = Date.now()
    this.#entries.set(id, entry)
    this.#onSession?.({ kind, sessionId: id })
  }

  /** Ends the session here (a stored session lives on for other processes). */
  end(id: string): void {
    const entry = this.#entries.get(id)
    if (!entry) return
    this.#entries.delete(id)
    this.#onSession?.({ kind: 'closed', sessionId: id })
    void entry.session.close().catch(() => undefined)
  }

  /** Ends `entry` if it is still the one held under `id` (its transport closed). */
  endIfHeld(id: string | undefined, entry: HttpSessionEntry): void {
    if (id !== undefined && this.#entries.get(id) === entry) this.end(id)
  }

  /** Takes every session out of the table, for a shutdown that closes them. */
  takeAll(): HttpSessionEntry[] {
    const all = [...this.#entries.values()]
    this.#entries.clear()
    return all
  }

  #countOf(owner: string): number {
    let n = this.#opening.get(owner) ?? 0
    for (const entry of this.#entries.values()) if (entry.owner === owner) n += 1
    return n
  }
}
