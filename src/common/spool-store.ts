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

/**
 * Durable bytes by id. Content is immutable once put; ids are unguessable and
 * safe to show a model. `get` of an unknown id resolves undefined, never throws.
 */
export interface SpoolStore {
  put(bytes: Uint8Array, meta?: SpoolMeta): Promise<Retrievable>
  get(id: string): Promise<Uint8Array | undefined>
  stat(id: string): Promise<Retrievable | undefined>
  delete(id: string): Promise<boolean>
}

/** Spool ids: a prefix and 16 random hex digits; nothing else is ever accepted as an id. */
export const SPOOL_ID_PATTERN = /^r_[0-9a-f]{16}$/

/** A fresh spool id. */
export function newSpoolId(): string {
  return `r_${randomBytes(8).toString('hex')}`
}

/** Builds the record a store keeps for `bytes`. */
export function describeSpooled(id: string, bytes: Uint8Array, meta: SpoolMeta = {}): Retrievable {
  return Object.freeze({
    id,
    kind: meta.kind ?? 'text',
    mimeType: meta.mimeType ?? 'text/plain',
    size: bytes.byteLength,
    ...(meta.title === undefined ? {} : { title: meta.title }),
    provenance: Object.freeze({ ...(meta.provenance ?? {}) }),
    trusted: meta.trusted === true,
    createdAt: Date.now(),
  })
}

/** A `SpoolStore` in memory: for tests, short sessions and benchmarks. */
export class MemorySpoolStore implements SpoolStore {
  readonly #items = new Map<string, { bytes: Uint8Array; record: Retrievable }>()

  async put(bytes: Uint8Array, meta?: SpoolMeta): Promise<Retrievable> {
    const id = newSpoolId()
    const copy = new Uint8Array(bytes)
    const record = describeSpooled(id, copy, meta)
    this.#items.set(id, { bytes: copy, record })
    return record
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    const item = this.#items.get(id)
    return item ? new Uint8Array(item.bytes) : undefined
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
