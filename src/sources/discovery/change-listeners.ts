/**
 * The `onDidChange` listeners of a watched source. Changes arriving within
 * `debounceMs` of the first are told once; a listener that throws does not
 * keep the others from hearing. The timer never keeps the process alive.
 */
export class ChangeListeners {
  readonly #listeners = new Set<() => void>()
  readonly #debounceMs: number
  #debounce: ReturnType<typeof setTimeout> | undefined

  constructor(debounceMs: number) {
    this.#debounceMs = debounceMs
  }

  /** How many listeners there are. */
  get size(): number {
    return this.#listeners.size
  }

  /** Adds `listener`; returns the unsubscribe function. */
  add(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /** Something changed: tell every listener once the debounce has passed (nothing when none listens). */
  changed(): void {
    if (this.#debounce || this.#listeners.size === 0) return
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined
      for (const listener of [...this.#listeners]) {
        try {
          listener()
        } catch {
          // A listener's failure is its own; the others still hear of the change.
        }
      }
    }, this.#debounceMs)
    this.#debounce.unref?.()
  }

  /** Drops every listener and a pending notice. */
  close(): void {
    if (this.#debounce) clearTimeout(this.#debounce)
    this.#listeners.clear()
  }
}
