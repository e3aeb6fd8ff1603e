import { AsyncLocalStorage } from 'node:async_hooks'
import type { OwnerScope } from '../../src/common/leak-tracker.js'

/** The owner in force across awaits, for `withResourceOwner` (the library imports no async hooks). */
export function asyncOwnerScope(): OwnerScope {
  const storage = new AsyncLocalStorage<object>()
  return { run: (owner, fn) => storage.run(owner, fn), current: () => storage.getStore() }
}
