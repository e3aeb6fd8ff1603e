/**
 * Runs async tasks one at a time in arrival order. A failed task does not
 * block the ones after it. Used to serialize every manager mutation, which is
 * what makes "two loads claiming one tool name: exactly one wins" true.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve()

  /** Queues `task`; resolves or rejects with its outcome. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(() => task())
    this.#tail = result.catch(() => undefined)
    return result
  }
}
