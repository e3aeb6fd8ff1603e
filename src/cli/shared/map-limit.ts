/**
 * `fn` over `items` with at most `concurrency` calls in flight; the results
 * in input order. After a rejection no new call starts, and the first
 * rejection is thrown. `list` and `validate` read many skills' declarations this way, so
 * a large catalog is neither read one at a time nor all at once.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++
      try {
        results[i] = await fn(items[i] as T)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}
