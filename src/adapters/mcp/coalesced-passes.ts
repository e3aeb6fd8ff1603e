/**
 * Wraps `pass` so that asking while a pass runs queues exactly one more pass
 * after it, however often it is asked: a burst of catalog notifications costs
 * at most two passes. Returns the function to ask with.
 */
export function coalescedPasses(pass: () => Promise<void>): () => void {
  let running: Promise<void> | undefined
  let again = false
  const ask = (): void => {
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        await pass().catch(() => undefined)
      } while (again)
    })().finally(() => {
      running = undefined
    })
  }
  return ask
}
