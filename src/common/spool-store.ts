import { randomBytes } from 'node:crypto'
import type { Provenance, Retrievable } from './retrievable.js'

/** What the caller says about bytes it spools. */
export interface SpoolMeta {
  readonly kind?: string
  readonly mimeType?: string
  readonly title?: string
  readonly provenance?: Provenance
  readonly trusted?: boolean
}

/** What can be spooled: bytes, or text (stored as its UTF-8 bytes). */
export type SpoolContent = Uint8Array | string

/**
 * How a put is made, apart from what the bytes are. `idempotencyKey` makes a
 * retried put safe: a put whose key a store already holds stores nothing and
 * resolves the first put's record (whatever content the retry brings; derive
 * the key from the request, e.g. a tool call id). A key is scoped to the
 * store (and, in `PostgresSpoolStore`, to its session) and is free again once
 * the item it names is deleted or pruned. 1–256 characters, no NUL.
 */
export interface SpoolPutOptions {
  readonly idempotencyKey?: string
}

/**
 * A byte range of spooled content: `start` inclusive (default 0), `end`
 * exclusive (default the size; clamped to it). Both non-negative integers,
 * `end` not before `start`; a `start` at or past the size reads nothing.
 */
export interface SpoolByteRange {
  readonly start?: number
  readonly end?: number
}

/**
 * Retention bounds for `SpoolStore.prune`, applied in this order: every item
 * of `session`, then items older than `maxAgeMs` (by `createdAt`), then the
 * oldest (by `createdAt`, then put order) until the rest take at most
 * `maxBytes`. Items of `keepSessions` are neither removed nor counted by the
 * age and size bounds (open sessions, as `pruneSpoolDirectories`' `keep`).
 * None given: nothing is removed.
 */
export interface SpoolPruneOptions {
  readonly session?: string
  readonly maxAgeMs?: number
  readonly maxBytes?: number
  readonly keepSessions?: readonly string[]
  /** The current time in ms since the epoch. Default `Date.now()`. */
  readonly now?: number
}

/** What `SpoolStore.prune` removed and what is left. */
export interface SpoolPruneResult {
  /** Number of items removed. */
  readonly removed: number
  /** Bytes those items held. */
  readonly removedBytes: number
  /** Bytes the remaining items hold, outside `keepSessions`. */
  readonly keptBytes: number
}

/**
 * Durable bytes by id. Content is immutable once put (a store keeps its own
 * copy); text is stored as UTF-8. Ids are unguessable and safe to show a
 * model. `get`, `stat` and `open` of an unknown id resolve undefined, never
 * throw; a store whose backend fails (a database down) rejects with
 * `E_SPOOL_FAILED`. `skillhost/conformance`'s `runSpoolStoreConformance`
 * checks a store against this contract.
 */
export interface SpoolStore {
  /** Stores a copy of `content`; see `SpoolPutOptions` for retried puts. */
  put(content: SpoolContent, meta?: SpoolMeta, options?: SpoolPutOptions): Promise<Retrievable>
  /**
   * Optional: the same as `put`, completed synchronously. Offered only by
   * stores that need no I/O (memory); hot paths use it when present.
   */
  putSync?(content: SpoolContent, meta?: SpoolMeta, options?: SpoolPutOptions): Retrievable
  /** The whole content, a fresh copy the caller may mutate. */
  get(id: string): Promise<Uint8Array | undefined>
  /** The record `put` returned, or undefined. */
  stat(id: string): Promise<Retrievable | undefined>
  /** Removes bytes and record; true when the id was stored. */
  delete(id: string): Promise<boolean>
  /**
   * Optional (all built-in stores have it): the content, or `range` of it, as
   * a stream read piece by piece, so a large artifact is never whole in
   * memory. An invalid range rejects with `E_ARTIFACT_READ_INVALID`; an item
   * deleted while streaming errors the stream with `E_ARTIFACT_NOT_FOUND`.
   */
  open?(id: string, range?: SpoolByteRange): Promise<ReadableStream<Uint8Array> | undefined>
  /** Optional: applies retention bounds (`PostgresSpoolStore` has it). */
  prune?(options: SpoolPruneOptions): Promise<SpoolPruneResult>
}

/** Spool ids: a prefix and 16 random hex digits; nothing else is ever accepted as an id. */
export const SPOOL_ID_PATTERN = /^r_[0-9a-f]{16}$/

// Ids come from a pool of random bytes, hex-encoded 512 ids at a time: one
// fill and one encode per pool instead of per id, which dominated the cost
// of spooling a small result.
const ID_HEX = 16
const POOL_IDS = 512
let pool = ''
let offset = 0

/** A fresh, unguessable spool id. */
export function newSpoolId(): string {
  if (offset >= pool.length) {
    pool = randomBytes((ID_HEX / 2) * POOL_IDS).toString('hex')
    offset = 0
  }
  const id = pool.slice(offset, offset + ID_HEX)
  offset += ID_HEX
  return `r_${id}`
}

/** UTF-8 byte length of spooled content. */
export function spooledSize(content: SpoolContent): number {
  return typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength
}

/** Builds the record a store keeps for `bytes`. */
export function describeSpooled(
  id: string,
  content: SpoolContent,
  meta: SpoolMeta = {},
): Retrievable {
  const given = meta.provenance
  // A frozen provenance (wrappers build one per tool) is shared, not copied.
  const provenance = given && Object.isFrozen(given) ? given : Object.freeze({ ...(given ?? {}) })
  const record: { -readonly [K in keyof Retrievable]: Retrievable[K] } = {
    id,
    kind: meta.kind ?? 'text',
    mimeType: meta.mimeType ?? 'text/plain',
    size: spooledSize(content),
    provenance,
    trusted: meta.trusted === true,
    createdAt: Date.now(),
  }
  if (meta.title !== undefined) record.title = meta.title
  return Object.freeze(record)
}

/** A record read back from storage (JSON), frozen like the one `describeSpooled` made. */
export function reviveSpooled(record: Retrievable): Retrievable {
  return Object.freeze({ ...record, provenance: Object.freeze({ ...record.provenance }) })
}
