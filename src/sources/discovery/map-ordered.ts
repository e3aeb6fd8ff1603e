/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight and yields
 * the results in input order. Stops starting new calls once the consumer stops
 * iterating; a rejection is rethrown when its turn comes.
 */
export async function* mapOrdered<T, R>(
  items: Iterable<T>,
  concurrency: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const iterator = items[Symbol.iterator]()
  const window: Promise<R>[] = []
  const fill = (): void => {
    while (window.length < concurrency) {
      const next = iterator.next()
      if (next.done) return
      const promise = fn(next.value)
      // Rejections are observed when yielded; this keeps them from being "unhandled" meanwhile.
      promise.catch(() => undefined)
      window.push(promise)
    }
  }
  fill()
  while (window.length > 0) {
    const result = await window.shift()!
    fill()
    yield result
  }
}
