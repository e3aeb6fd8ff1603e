/** Anything that can be torn down: a function or an object with `dispose`/`Symbol.asyncDispose`. */
export type DisposableLike =
  | (() => void | Promise<void>)
  | { dispose(): void | Promise<void> }
  | { [Symbol.asyncDispose](): Promise<void> }

function disposeOne(item: DisposableLike): void | Promise<void> {
  if (typeof item === 'function') return item()
  if ('dispose' in item && typeof item.dispose === 'function') return item.dispose()
  return (item as { [Symbol.asyncDispose](): Promise<void> })[Symbol.asyncDispose]()
}

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | undefined)?.then === 'function'
}

/**
 * An ownership list of teardown steps. `dispose` runs them in reverse order
 * of addition, exactly once, and collects every failure into one
 * `AggregateError`; adding to a disposed store disposes the item at once and
 * throws, so nothing created late can leak. Steps that return no promise run
 * synchronously inside the `dispose()` call, so an owner whose steps are all
 * synchronous (the AI SDK tool set) is fully torn down when `dispose` returns.
 */
export class DisposableStore {
  readonly #items: DisposableLike[] = []
  #disposed: Promise<void> | undefined

  /** Takes ownership of `item`; returns it for chaining. */
  add<T extends DisposableLike>(item: T): T {
    if (this.#disposed) {
      void Promise.resolve()
        .then(() => disposeOne(item))
        .catch(() => undefined)
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
    this.#disposed ??= this.#run(this.#items.splice(0).reverse())
    return this.#disposed
  }

  #run(items: readonly DisposableLike[]): Promise<void> {
    const errors: unknown[] = []
    const from = (start: number): Promise<void> => {
      for (let i = start; i < items.length; i++) {
        let result: void | Promise<void>
        try {
          result = disposeOne(items[i] as DisposableLike)
        } catch (err) {
          errors.push(err)
          continue
        }
        if (isThenable(result)) {
          return Promise.resolve(result).then(
            () => from(i + 1),
            (err: unknown) => {
              errors.push(err)
              return from(i + 1)
            },
          )
        }
      }
      return errors.length > 0
        ? Promise.reject(new AggregateError(errors, 'disposal failed'))
        : Promise.resolve()
    }
    return from(0)
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose()
  }
}
