import type { SkillManagerEvent } from './types.js'

/**
 * The manager's `onDidChange` listeners. A listener that throws is ignored:
 * it must not break a lifecycle transition that already happened.
 */
export class ManagerEvents {
  readonly #listeners = new Set<(event: SkillManagerEvent) => void>()

  /** Adds `listener`; the returned function removes it. */
  on(listener: (event: SkillManagerEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /** Tells every listener, in subscription order. */
  emit(event: SkillManagerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // A listener must not break a lifecycle transition that already happened.
      }
    }
  }

  /** Forgets every listener (at dispose). */
  clear(): void {
    this.#listeners.clear()
  }
}
