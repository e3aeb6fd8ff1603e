import { SkillHostError } from './errors.js'

/**
 * How much a spool store holds at most. A put past either bound rejects with
 * `E_SPOOL_FULL` and stores nothing; a put answered from an idempotency key
 * (the same key, or the same content key) never counts twice. `Infinity`
 * lifts a bound.
 */
export interface SpoolQuotaOptions {
  /** Most bytes of content held. Default `SPOOL_QUOTA_DEFAULTS.maxBytes` (256 MiB). */
  readonly maxBytes?: number
  /** Most items held. Default `SPOOL_QUOTA_DEFAULTS.maxItems` (10,000). */
  readonly maxItems?: number
}

/**
 * The default quota of `MemorySpoolStore` and `FileSpoolStore`: one
 * session's worth (sixteen 16 MiB workspace reads of distinct files).
 */
export const SPOOL_QUOTA_DEFAULTS = { maxBytes: 256 * 1024 * 1024, maxItems: 10_000 } as const

function bound(value: number | undefined, fallback: number, what: string): number {
  const n = value ?? fallback
  if (n !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(n) || n < 1))
    throw new TypeError(`${what} must be a positive integer or Infinity`)
  return n
}

/**
 * The usage a store keeps against its quota. `reserve` is synchronous, so
 * two puts racing in one process cannot both pass the last free bytes.
 */
export class SpoolQuota {
  readonly maxBytes: number
  readonly maxItems: number
  #bytes = 0
  #items = 0

  constructor(options: SpoolQuotaOptions = {}) {
    this.maxBytes = bound(options.maxBytes, SPOOL_QUOTA_DEFAULTS.maxBytes, 'maxBytes')
    this.maxItems = bound(options.maxItems, SPOOL_QUOTA_DEFAULTS.maxItems, 'maxItems')
  }

  /** Bytes and items counted now. */
  get used(): { readonly bytes: number; readonly items: number } {
    return { bytes: this.#bytes, items: this.#items }
  }

  /** Counts one item of `size` bytes, or throws `E_SPOOL_FULL` and counts nothing. */
  reserve(size: number): void {
    if (this.#items + 1 > this.maxItems || this.#bytes + size > this.maxBytes)
      throw spoolFull({
        maxBytes: this.maxBytes,
        maxItems: this.maxItems,
        usedBytes: this.#bytes,
        usedItems: this.#items,
        size,
      })
    this.#bytes += size
    this.#items += 1
  }

  /** Uncounts one item of `size` bytes (deleted, or a put that stored nothing). */
  release(size: number): void {
    this.#bytes = Math.max(0, this.#bytes - size)
    this.#items = Math.max(0, this.#items - 1)
  }

  /** Counts an item already stored (found when a store opens its directory), unchecked. */
  count(size: number): void {
    this.#bytes += size
    this.#items += 1
  }

  /** Forgets every item (the store was emptied). */
  reset(): void {
    this.#bytes = 0
    this.#items = 0
  }
}

/** A store's quota and its usage, as `MemorySpoolStore.quota` and `FileSpoolStore.quota` report it. */
export interface SpoolQuotaUsage {
  readonly maxBytes: number
  readonly maxItems: number
  readonly usedBytes: number
  readonly usedItems: number
}

/** The usage report of `quota`. */
export function quotaUsage(quota: SpoolQuota): SpoolQuotaUsage {
  const { bytes, items } = quota.used
  return { maxBytes: quota.maxBytes, maxItems: quota.maxItems, usedBytes: bytes, usedItems: items }
}

/**
 * `E_SPOOL_FULL` for a put of `size` bytes refused at `usedBytes` /
 * `usedItems` (what the store held before it): the message names the bound
 * that was passed, `data` carries the figures.
 */
export function spoolFull(figures: SpoolQuotaUsage & { readonly size: number }): SkillHostError {
  const which =
    figures.usedItems + 1 > figures.maxItems
      ? `${figures.maxItems} items`
      : `${figures.maxBytes} bytes`
  return new SkillHostError(
    'E_SPOOL_FULL',
    `The session's result store is full (at most ${which}); nothing was stored. Work with the artifacts already kept, or start a new session.`,
    { data: { ...figures } },
  )
}
