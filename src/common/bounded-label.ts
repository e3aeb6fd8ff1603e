/** The label value every id past a `BoundedLabel`'s cap (or too long, or empty) is counted under. */
export const OVERFLOW_LABEL = 'other'

/** Longest id a `BoundedLabel` passes through; a longer one is `OVERFLOW_LABEL`. */
export const LABEL_VALUE_MAX = 128

/**
 * The values one metric label may take from ids a catalog chose (skill ids):
 * the first `cap` distinct ids pass as themselves, every later one (and any
 * id longer than `LABEL_VALUE_MAX` characters) becomes `OVERFLOW_LABEL`. So
 * however many skills a catalog holds, the label never has more than
 * `cap + 1` values: a hostile catalog cannot grow the series count. Ids are
 * never truncated (two ids would then share a series under one's name).
 */
export class BoundedLabel {
  readonly #seen = new Set<string>()
  constructor(readonly cap: number) {}

  /** `id` as this label's value: itself while the cap allows, else `OVERFLOW_LABEL`. */
  value(id: string): string {
    if (id === '' || id.length > LABEL_VALUE_MAX || id === OVERFLOW_LABEL) return OVERFLOW_LABEL
    if (this.#seen.has(id)) return id
    if (this.#seen.size >= this.cap) return OVERFLOW_LABEL
    this.#seen.add(id)
    return id
  }
}
