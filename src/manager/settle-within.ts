/**
 * Waits for `work` at most `ms` milliseconds. Resolves `'settled'` or
 * `'timeout'` and never rejects; the timer is cleared either way, so a bounded
 * wait never keeps the process alive.
 */
export async function settleWithin(
  work: Promise<unknown>,
  ms: number,
): Promise<'settled' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms)
  })
  try {
    return await Promise.race([
      work.then(
        () => 'settled' as const,
        () => 'settled' as const,
      ),
      timedOut,
    ])
  } finally {
    clearTimeout(timer)
  }
}
