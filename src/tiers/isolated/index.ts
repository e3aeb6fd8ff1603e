/**
 * `skillhost/isolation`: tier 2, JavaScript tools evaluated in QuickJS
 * guests: the worker pool with a real kill (`createQuickJsGuest`), the
 * in-process guest behind its unsafe opt-in, limits and the fair queue.
 * This entry loads `worker_threads`; the root entry must not import it.
 */

export { type GuestPoolFairShare, resolveFairShare } from './fair-queue.js'
export { createInProcessGuest } from './in-process-guest.js'
export {
  DEFAULT_ISOLATION_LIMITS,
  MAX_GUEST_STACK_BYTES,
  MIN_GUEST_MEMORY_BYTES,
  resolveIsolationLimits,
} from './limits.js'
export {
  createQuickJsGuest,
  QuickJsGuestPool,
  type QuickJsGuestPoolOptions,
  type QuickJsGuestPoolStats,
} from './quickjs-guest-pool.js'
export { renderIsolatedResult } from './render-isolated-result.js'
export {
  clampTimeoutSeconds,
  HARD_KILL_GRACE_MS,
  type IsolatedToolResult,
  type RunIsolatedToolOptions,
  runIsolatedTool,
} from './run-isolated-tool.js'
export type {
  GuestConsoleEntry,
  GuestResolveOptions,
  GuestResolver,
  GuestRunRequest,
  GuestRunResult,
  IsolatedGlobal,
  IsolatedGuest,
  IsolationLimits,
  SkillIsolatedTool,
  SkillIsolationConfig,
} from './types.js'
export { TIMEOUT_ARG } from './with-timeout-param.js'
