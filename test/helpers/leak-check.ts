import { afterAll } from 'vitest'
import {
  describeLeaks,
  ResourceTracker,
  setResourceTracker,
} from '../../src/common/leak-tracker.js'
import { leakAllowance } from './leak-allowance.js'

// A vitest setup file (vitest.config.ts `setupFiles`), run before every test
// file: it installs a fresh tracker, and its `afterAll`, registered first,
// runs after the file's own hooks (vitest runs after-hooks as a stack). It
// waits for releases under way, then fails the file naming every manager,
// worker, process, watcher, workspace, skill copy, spool directory or MCP
// session that outlived it, with the stack that made it.
const tracker = new ResourceTracker()
setResourceTracker(tracker)

afterAll(async () => {
  const leaks = await tracker.settle()
  tracker.clear()
  if (leaks.length === 0) return
  const reason = leakAllowance()
  if (reason !== undefined) {
    console.warn(`leaks allowed (${reason}):\n${describeLeaks(leaks)}`)
    return
  }
  throw new Error(describeLeaks(leaks))
})
