import { AsyncLocalStorage } from 'node:async_hooks'
import type { SkillHostMetrics } from './skill-host-metrics.js'

// Keyed by the async context of the call an adapter runs: two hosts (two
// registries) in one process each count only their own calls.
const active = new AsyncLocalStorage<SkillHostMetrics>()

/**
 * The metrics of the call running now (see `SkillHostMetrics.run`), for the
 * places deep in a call that count something (a sandbox start, a queue
 * wait, a build); undefined outside any. Capture it when the work starts:
 * an event handler may run outside the call's context.
 */
export function activeMetrics(): SkillHostMetrics | undefined {
  return active.getStore()
}

/** Runs `fn` with `metrics` as `activeMetrics()`. */
export function runWithMetrics<T>(metrics: SkillHostMetrics, fn: () => T): T {
  return active.run(metrics, fn)
}
