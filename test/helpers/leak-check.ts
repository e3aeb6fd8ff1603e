import { afterAll } from 'vitest'
import {
  describeLeaks,
  ResourceTracker,
  setResourceTracker,
} from '../../src/common/leak-tracker.js'
import { leakAllowance } from './leak-allowance.js'
import { asyncOwnerScope } from './owner-scope.js'

// A vitest setup file (vitest.config.ts `setupFiles`), run before every test
// file: it installs a fresh tracker, and its `afterAll`, registered first,
// runs after the file's own hooks (vitest runs after-hooks as a stack). It
// waits for releases under way, then fails the file naming every manager,
// worker, process, watcher, workspace, skill copy, spool directory or MCP
// session that outlived it, with its owners and the stack that made it.

const tracker = new ResourceTracker(asyncOwnerScope())
setResourceTracker(tracker)

afterAll(async () => {
  const leaks = await tracker.settle()
  // Described before clearing: an owner's state (leaked too, released) is read from the tracker.
  const report = leaks.length === 0 ? '' : describeLeaks(leaks, tracker)
  tracker.clear()
  if (leaks.length === 0) return
  const reason = leakAllowance()
  if (reason !== undefined) {
    console.warn(`leaks allowed (${reason}):\n${report}`)
    return
  }
  throw new Error(report)
})
