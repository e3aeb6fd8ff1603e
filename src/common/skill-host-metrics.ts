import { createRequire } from 'node:module'
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { runWithMetrics } from './active-metrics.js'
import { BoundedLabel } from './bounded-label.js'
import { outcomeLabel } from './outcome-label.js'

/** What kind of tool a call went to: a skill's tier, or one of the host's own families. */
export type ToolCallKind =
  | 'lifecycle'
  | 'module'
  | 'isolated'
  | 'script'
  | 'workspace'
  | 'reader'
  | 'host'
  | 'unknown'

/** Where spooled or workspace bytes were written: the store's family, never its location. */
export type MetricsStoreKind = 'file' | 'memory' | 'postgres' | 'disk' | 'other'

/** Options for `SkillHostMetrics`. */
export interface SkillHostMetricsOptions {
  /**
   * The registry to register into. Default: a new one of its own (never
   * prom-client's global default registry, so two hosts in one process do
   * not collide). A registry holds one `SkillHostMetrics` at most.
   */
  readonly registry?: Registry
  /** Distinct skill ids a metric labels; later ids count under `other`. Default `SKILL_LABEL_CAP`. */
  readonly maxSkillLabels?: number
}

/** The default cap on distinct skill ids per metric (`skill` label): 100, plus `other`. */
export const SKILL_LABEL_CAP = 100

const seconds = (buckets: number[]) => ({ buckets })

// prom-client (and the OpenTelemetry API it pulls) is loaded when the first
// metrics object is made, not with `skillhost/common`: a command that keeps no
// metrics (`skillhost validate`, `list`) does not pay for ~80 modules it never uses.
let promClient: typeof import('prom-client') | undefined
const loadPromClient = (): typeof import('prom-client') =>
  (promClient ??= createRequire(import.meta.url)('prom-client') as typeof import('prom-client'))

/**
 * skillhost's Prometheus metrics (prom-client), every name prefixed
 * `skillhost_` (docs/operations.md lists them). Serve `registry.metrics()`
 * from your own endpoint, or pass this object to `serveMcpHttp({ metrics })`
 * for `GET /metrics`. Labels carry fixed vocabularies (tool kinds, error
 * codes, store kinds, HTTP limits) and skill ids, at most `maxSkillLabels`
 * distinct ones per metric (`BoundedLabel`): the series count is bounded
 * whatever the catalog holds. Never skill-chosen free text, paths or
 * arguments.
 */
export class SkillHostMetrics {
  /** The registry every metric here is registered in; `await registry.metrics()` is the exposition text. */
  readonly registry: Registry
  readonly #skills: BoundedLabel
  readonly #sessionsOpen: Gauge
  readonly #sessions: Counter
  readonly #calls: Counter
  readonly #callSeconds: Histogram
  readonly #sandboxStarts: Counter
  readonly #sandboxFailures: Counter
  readonly #queueWait: Histogram
  readonly #spoolBytes: Counter
  readonly #workspaceBytes: Counter
  readonly #builds: Counter
  readonly #buildSeconds: Histogram
  readonly #httpLimits: Counter

  constructor(options: SkillHostMetricsOptions = {}) {
    const { Counter, Gauge, Histogram, Registry } = loadPromClient()
    this.registry = options.registry ?? new Registry()
    const registers = [this.registry]
    this.#skills = new BoundedLabel(options.maxSkillLabels ?? SKILL_LABEL_CAP)
    const c = (name: string, help: string, labelNames: string[] = []) =>
      new Counter({ name: `skillhost_${name}`, help, labelNames, registers })
    const h = (name: string, help: string, buckets: number[], labelNames: string[] = []) =>
      new Histogram({ name: `skillhost_${name}`, help, labelNames, registers, ...seconds(buckets) })
    this.#sessionsOpen = new Gauge({
      name: 'skillhost_sessions_open',
      help: 'MCP sessions open in this process.',
      registers,
    })
    this.#sessions = c('sessions_total', 'MCP sessions started here, by how.', ['event'])
    this.#calls = c('tool_calls_total', 'Tool calls by tool kind, outcome code and skill id.', [
      'kind',
      'outcome',
      'skill',
    ])
    this.#callSeconds = h(
      'tool_call_duration_seconds',
      'Tool call duration by tier (tool kind).',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      ['tier'],
    )
    this.#sandboxStarts = c('sandbox_starts_total', 'Sandboxed processes (bubblewrap) started.')
    this.#sandboxFailures = c(
      'sandbox_start_failures_total',
      'Sandboxed processes that failed to start (bubblewrap could not set up).',
    )
    this.#queueWait = h(
      'isolated_queue_wait_seconds',
      'Time an isolated-tool call waited for a QuickJS worker.',
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    )
    this.#spoolBytes = c('spool_bytes_total', 'Bytes spooled (results kept), by store kind.', [
      'store',
    ])
    this.#workspaceBytes = c(
      'workspace_bytes_total',
      'Bytes of session-workspace files calls wrote, by store kind.',
      ['store'],
    )
    this.#builds = c('provision_builds_total', 'Script environment builds, by outcome.', [
      'outcome',
    ])
    this.#buildSeconds = h(
      'provision_build_duration_seconds',
      'Script environment build duration.',
      [0.5, 1, 5, 10, 30, 60, 120, 300, 600],
    )
    this.#httpLimits = c('http_limits_total', 'HTTP requests refused by a limit.', [
      'limit',
      'status',
    ])
  }

  /** Runs `fn` with this object as `activeMetrics()`: what the call does deep down is counted here. */
  run<T>(fn: () => T): T {
    return runWithMetrics(this, fn)
  }

  /** An MCP session opened or was restored here (`sessions_total`, `sessions_open` + 1). */
  sessionStarted(event: 'opened' | 'restored'): void {
    this.#sessions.inc({ event })
    this.#sessionsOpen.inc()
  }

  /** An MCP session ended here (`sessions_open` − 1). */
  sessionEnded(): void {
    this.#sessionsOpen.dec()
  }

  /** One finished tool call: its kind, `outcomeLabel(error)`, its skill (bounded) and duration. */
  toolCall(call: {
    kind: ToolCallKind
    error?: unknown
    skill?: string | undefined
    seconds: number
  }): void {
    const skill = call.skill === undefined ? 'none' : this.#skills.value(call.skill)
    this.#calls.inc({ kind: call.kind, outcome: outcomeLabel(call.error), skill })
    this.#callSeconds.observe({ tier: call.kind }, call.seconds)
  }

  /** A sandboxed process was started (`ok`) or bubblewrap failed to set it up. */
  sandboxStart(ok: boolean): void {
    this.#sandboxStarts.inc()
    if (!ok) this.#sandboxFailures.inc()
  }

  /** An isolated-tool call got its worker after waiting `seconds`. */
  isolatedQueueWait(seconds: number): void {
    this.#queueWait.observe(seconds)
  }

  /** `bytes` were spooled into a store of `store`'s kind. */
  spoolBytes(store: MetricsStoreKind, bytes: number): void {
    this.#spoolBytes.inc({ store }, bytes)
  }

  /** A call wrote `bytes` of session-workspace files. */
  workspaceBytes(store: MetricsStoreKind, bytes: number): void {
    this.#workspaceBytes.inc({ store }, bytes)
  }

  /** A script environment build ended after `seconds`. */
  provisionBuild(ok: boolean, seconds: number): void {
    this.#builds.inc({ outcome: ok ? 'ok' : 'failed' })
    this.#buildSeconds.observe(seconds)
  }

  /** An HTTP request was refused by `limit` with `status` (413, 408, 503). */
  httpLimit(limit: string, status: number): void {
    this.#httpLimits.inc({ limit, status: String(status) })
  }
}
