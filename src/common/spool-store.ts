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
 * Durable bytes by id. Content is immutable once put (a store keeps its own
 * copy); text is stored as UTF-8. Ids are unguessable and safe to show a
 * model. `get` of an unknown id resolves undefined, never throws.
 */
export interface SpoolStore {
  put(content: SpoolContent, meta?: SpoolMeta): Promise<Retrievable>
  /**
   * Optional: the same as `put`, completed synchronously. Offered only by
   * stores that need no I/O (memory); hot paths use it when present.
   */
  putSync?(content: SpoolContent, meta?: SpoolMeta): Retrievable
  get(id: string): Promise<Uint8Array | undefined>
  stat(id: string): Promise<Retrievable | undefined>
  delete(id: string): Promise<boolean>
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

/** A `SpoolStore` in memory: for tests, short sessions and benchmarks. */
export class MemorySpoolStore implements SpoolStore {
  // Text is kept as a string (immutable, no copy) and encoded on read; bytes
  // are copied on the way in and on the way out.
  readonly #items = new Map<string, { content: SpoolContent; record: Retrievable }>()

  put(content: SpoolContent, meta?: SpoolMeta): Promise<Retrievable> {
    try {
      return Promise.resolve(this.putSync(content, meta))
    } catch (err) {
      return Promise.reject(err)
    }
  }

  putSync(content: SpoolContent, meta?: SpoolMeta): Retrievable {
    const id = newSpoolId()
    const kept = typeof content === 'string' ? content : new Uint8Array(content)
    const record = describeSpooled(id, kept, meta)
    this.#items.set(id, { content: kept, record })
    return record
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const item = this.#items.get(id)
    if (!item) return undefined
    return typeof item.content === 'string'
      ? new Uint8Array(Buffer.from(item.content, 'utf8'))
      : new Uint8Array(item.content)
  }

  async stat(id: string): Promise<Retrievable | undefined> {
    return this.#items.get(id)?.record
  }

  async delete(id: string): Promise<boolean> {
    return this.#items.delete(id)
  }

  /** Number of spooled items. */
  get size(): number {
    return this.#items.size
  }
}
