/** Anything that can be torn down: a function or an object with `dispose`/`Symbol.asyncDispose`. */
export type DisposableLike =
  | (() => void | Promise<void>)
  | { dispose(): void | Promise<void> }
  | { [Symbol.asyncDispose](): Promise<void> }

async function disposeOne(item: DisposableLike): Promise<void> {
  if (typeof item === 'function') return item()
  if ('dispose' in item && typeof item.dispose === 'function') return item.dispose()
  return (item as { [Symbol.asyncDispose](): Promise<void> })[Symbol.asyncDispose]()
}

/**
 * An ownership list of teardown steps. `dispose` runs them in reverse order
 * of addition, exactly once, and collects every failure into one
 * `AggregateError`; adding to a disposed store disposes the item at once and
 * throws, so nothing created late can leak.
 */
export class DisposableStore {
  readonly #items: DisposableLike[] = []
  #disposed: Promise<void> | undefined

  /** Takes ownership of `item`; returns it for chaining. */
  add<T extends DisposableLike>(item: T): T {
    if (this.#disposed) {
      void disposeOne(item).catch(() => undefined)
      throw new Error('DisposableStore is already disposed')
    }
    this.#items.push(item)
    return item
  }

  /** True once `dispose` has been called. */
  get isDisposed(): boolean {
    return this.#disposed !== undefined
  }

  /** Tears everything down once; later calls return the same promise. */
  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      const errors: unknown[] = []
      for (const item of this.#items.splice(0).reverse()) {
        try {
          await disposeOne(item)
        } catch (err) {
          errors.push(err)
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, 'disposal failed')
    })()
    return this.#disposed
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose()
  }
}
