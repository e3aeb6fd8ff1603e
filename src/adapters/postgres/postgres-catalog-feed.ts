import type { Client, Notification, Pool } from 'pg'
import type { CatalogChangeFeed } from '../../manager/index.js'

/** The NOTIFY channel catalog refreshes are announced on, unless another is given. */
export const CATALOG_CHANNEL = 'skillhost_catalog'

/** Options for `PostgresCatalogFeed`. */
export interface PostgresCatalogFeedOptions {
  /** Where `publish` sends its NOTIFY. */
  readonly pool: Pool
  /** Makes the dedicated LISTEN connection (again after it drops). */
  readonly connect: () => Client
  /** This process's name; its own notifications are not delivered back to it. */
  readonly replica: string
  /** Lower-case letters, digits and `_`; default `CATALOG_CHANNEL`. */
  readonly channel?: string
  /** Called when the LISTEN connection drops or cannot be made (it is retried), for logging. */
  readonly onError?: (error: unknown) => void
  /** The longest wait between reconnect attempts. Default 5,000 ms. */
  readonly maxBackoffMs?: number
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/
/** Payloads longer than this are not parsed at all (PostgreSQL allows 8,000 bytes). */
const MAX_PAYLOAD = 256

/** The publishing replica named by a payload, or undefined; never throws, never evaluates. */
function originOf(payload: string | undefined): string | undefined {
  if (payload === undefined || payload.length > MAX_PAYLOAD) return undefined
  try {
    const r = (JSON.parse(payload) as { r?: unknown } | null)?.r
    return typeof r === 'string' ? r : undefined
  } catch {
    return undefined
  }
}

/**
 * `CatalogChangeFeed` over PostgreSQL LISTEN/NOTIFY. `publish` sends
 * `{"r":"<replica>"}` (small, and nothing a listener acts on but the origin);
 * a notification from any other origin, whatever its payload, reaches the
 * subscribers, who refresh their catalogs (so a forged or giant payload can
 * at most cause a refresh). The LISTEN connection is dedicated and is made
 * again, with a growing backoff, whenever it drops; after a reconnect the
 * subscribers are called once, since notifications may have been missed.
 */
export class PostgresCatalogFeed implements CatalogChangeFeed, AsyncDisposable {
  readonly #options: PostgresCatalogFeedOptions
  readonly #channel: string
  readonly #listeners = new Set<() => void>()
  #client: Client | undefined
  #timer: NodeJS.Timeout | undefined
  #attempt = 0
  #closed = false
  #connected = false

  constructor(options: PostgresCatalogFeedOptions) {
    const channel = options.channel ?? CATALOG_CHANNEL
    if (!CHANNEL.test(channel)) throw new TypeError(`channel must match ${CHANNEL}`)
    this.#options = options
    this.#channel = channel
  }

  /** Opens the LISTEN connection; rejects if the first attempt fails (later drops are retried). */
  async start(): Promise<void> {
    await this.#listen()
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.#connected
  }

  async publish(): Promise<void> {
    const payload = JSON.stringify({ r: this.#options.replica.slice(0, 200) })
    await this.#options.pool.query('SELECT pg_notify($1, $2)', [this.#channel, payload])
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /** Stops listening for good. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer) clearTimeout(this.#timer)
    const client = this.#client
    this.#client = undefined
    this.#connected = false
    await client?.end().catch(() => undefined)
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }

  #deliver(): void {
    for (const listener of this.#listeners) {
      try {
        listener()
      } catch {
        // One subscriber's failure is not the feed's.
      }
    }
  }

  async #listen(): Promise<void> {
    const client = this.#options.connect()
    let dropped = false
    const drop = (error: unknown): void => {
      if (dropped) return
      dropped = true
      this.#connected = false
      if (this.#client === client) this.#client = undefined
      void client.end().catch(() => undefined)
      if (this.#closed) return
      this.#options.onError?.(error)
      this.#retry()
    }
    client.on('error', drop)
    client.on('end', () => drop(new Error('the LISTEN connection ended')))
    client.on('notification', (message: Notification) => {
      if (message.channel !== this.#channel) return
      if (originOf(message.payload) === this.#options.replica) return
      this.#deliver()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${this.#channel}`)
    } catch (err) {
      dropped = true
      void client.end().catch(() => undefined)
      throw err
    }
    if (this.#closed) {
      await client.end().catch(() => undefined)
      return
    }
    this.#client = client
    this.#connected = true
    this.#attempt = 0
  }

  #retry(): void {
    const max = this.#options.maxBackoffMs ?? 5_000
    const delay = Math.min(max, 50 * 2 ** Math.min(this.#attempt, 10))
    this.#attempt += 1
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#closed) return
      this.#listen().then(
        // Anything published while the connection was down was missed.
        () => this.#deliver(),
        (error) => {
          this.#options.onError?.(error)
          this.#retry()
        },
      )
    }, delay)
    this.#timer.unref()
  }
}
