import { activeMetrics } from './active-metrics.js'
import type { Retrievable } from './retrievable.js'
import { putIdempotencyKey } from './spool-put-key.js'
import {
  quotaUsage,
  SpoolQuota,
  type SpoolQuotaOptions,
  type SpoolQuotaUsage,
} from './spool-quota.js'
import { resolveSpoolRange, spoolRangeStream } from './spool-range.js'
import {
  describeSpooled,
  newSpoolId,
  type SpoolByteRange,
  type SpoolContent,
  type SpoolMeta,
  type SpoolPutOptions,
  type SpoolStore,
  spooledSize,
} from './spool-store.js'

interface Item {
  readonly content: SpoolContent
  readonly record: Retrievable
  readonly key: string | undefined
}

const PIECE_BYTES = 256 * 1024

const toBytes = (content: SpoolContent): Uint8Array =>
  typeof content === 'string' ? Buffer.from(content, 'utf8') : content

/**
 * A `SpoolStore` in memory: for tests, short sessions and benchmarks (the
 * default spool of a manager and a turn context). It holds at most
 * `maxBytes` bytes and `maxItems` items (`SPOOL_QUOTA_DEFAULTS`: 256 MiB,
 * 10,000); a put past either rejects with `E_SPOOL_FULL`.
 */
export class MemorySpoolStore implements SpoolStore {
  // Text is kept as a string (immutable, no copy) and encoded on read; bytes
  // are copied on the way in and on the way out.
  readonly #items = new Map<string, Item>()
  readonly #keys = new Map<string, string>()
  readonly #quota: SpoolQuota

  constructor(options: SpoolQuotaOptions = {}) {
    this.#quota = new SpoolQuota(options)
  }

  put(content: SpoolContent, meta?: SpoolMeta, options?: SpoolPutOptions): Promise<Retrievable> {
    try {
      return Promise.resolve(this.putSync(content, meta, options))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  putSync(content: SpoolContent, meta?: SpoolMeta, options?: SpoolPutOptions): Retrievable {
    const key = putIdempotencyKey(options)
    const earlier = key === undefined ? undefined : this.#keys.get(key)
    if (earlier !== undefined) {
      const item = this.#items.get(earlier)
      if (item) return item.record
    }
    this.#quota.reserve(spooledSize(content))
    const id = newSpoolId()
    const kept = typeof content === 'string' ? content : new Uint8Array(content)
    const record = describeSpooled(id, kept, meta)
    this.#items.set(id, { content: kept, record, key })
    activeMetrics()?.spoolBytes('memory', record.size)
    if (key !== undefined) this.#keys.set(key, id)
    return record
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const item = this.#items.get(id)
    if (!item) return undefined
    return new Uint8Array(toBytes(item.content))
  }

  async open(id: string, range?: SpoolByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    const item = this.#items.get(id)
    if (!item) return undefined
    const bytes = toBytes(item.content)
    return spoolRangeStream({
      range: resolveSpoolRange(range, bytes.byteLength),
      pieceBytes: PIECE_BYTES,
      read: async (offset, length) => bytes.slice(offset, offset + length),
    })
  }

  async stat(id: string): Promise<Retrievable | undefined> {
    return this.#items.get(id)?.record
  }

  async delete(id: string): Promise<boolean> {
    const item = this.#items.get(id)
    if (!item) return false
    this.#items.delete(id)
    this.#quota.release(item.record.size)
    if (item.key !== undefined) this.#keys.delete(item.key)
    return true
  }

  /** Number of spooled items. */
  get size(): number {
    return this.#items.size
  }

  /** The quota and what counts against it now. */
  get quota(): SpoolQuotaUsage {
    return quotaUsage(this.#quota)
  }
}
