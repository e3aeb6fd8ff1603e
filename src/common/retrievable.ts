/** Where spooled content came from. */
export interface Provenance {
  readonly skill?: string
  readonly skillVersion?: string
  readonly tool?: string
  readonly source?: string
}

/**
 * Spooled content the model can cite by `id`: bytes in a `SpoolStore` plus
 * what they are (kind, MIME type, size), where they came from and whether the
 * host trusts them. Skill output is always `trusted: false`.
 */
export interface Retrievable {
  readonly id: string
  readonly kind: string
  readonly mimeType: string
  readonly size: number
  readonly title?: string
  readonly provenance: Provenance
  readonly trusted: boolean
  readonly createdAt: number
}

/** How a retrievable is placed into the model's context this turn. */
export interface ProjectedRetrievable {
  readonly retrievable: Retrievable
  /** `inline`: `text` is the content itself. `handle`: `text` describes it (id, size, outline). */
  readonly channel: 'inline' | 'handle'
  readonly text: string
}

/**
 * What is projected into the model's context for one turn, in insertion order.
 * Keyed by retrievable id so a projection can be removed exactly.
 */
export class RetrievableSet {
  readonly #entries = new Map<string, ProjectedRetrievable>()

  /** Projects `entry`, replacing an earlier projection of the same id. */
  add(entry: ProjectedRetrievable): void {
    this.#entries.set(entry.retrievable.id, entry)
  }

  /** Removes the projection of `id`; true when there was one. */
  remove(id: string): boolean {
    return this.#entries.delete(id)
  }

  /** The projection of `id`, if any. */
  get(id: string): ProjectedRetrievable | undefined {
    return this.#entries.get(id)
  }

  /** True when `id` is projected. */
  has(id: string): boolean {
    return this.#entries.has(id)
  }

  /** All projections in insertion order. */
  all(): ProjectedRetrievable[] {
    return [...this.#entries.values()]
  }

  /** Number of projections. */
  get size(): number {
    return this.#entries.size
  }
}
