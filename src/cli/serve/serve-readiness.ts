import type { ReadinessReport, ReadinessState } from '../../adapters/mcp/index.js'

/** How long `SELECT 1` may take before PostgreSQL counts as not answering. */
export const POSTGRES_PING_MS = 2_000

/**
 * How long a sandbox probe's answer is reused: `/readyz` starts at most one
 * bubblewrap process per this many ms, whatever the probe rate.
 */
export const SANDBOX_PROBE_TTL_MS = 60_000

/** What `serve`'s readiness looks at. */
export interface ServeReadinessParts {
  /** With `--postgres`: a bounded `SELECT 1`. */
  readonly postgres?: { ping(deadlineMs: number): Promise<void> }
  /** With scripts on: starts one sandboxed process (`SandboxHandle.probe`). */
  readonly probeSandbox?: () => Promise<void>
  /** The clock the probe cache reads, in ms. Default `performance.now`. */
  readonly now?: () => number
}

/** `run` at most once at a time: callers while it runs share its answer. */
function singleFlight<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= run().finally(() => {
      pending = undefined
    })
    return pending
  }
}

/** The sandbox's state, probed at most once per `SANDBOX_PROBE_TTL_MS` (the runtime probed it at start). */
function cachedSandbox(
  probe: () => Promise<void>,
  now: () => number,
): () => Promise<ReadinessState> {
  let state: ReadinessState = 'ok'
  let checkedAt = now()
  const again = singleFlight(async () => {
    state = await probe().then(
      (): ReadinessState => 'ok',
      (): ReadinessState => 'failing',
    )
    checkedAt = now()
  })
  return async () => {
    if (now() - checkedAt >= SANDBOX_PROBE_TTL_MS) await again()
    return state
  }
}

/**
 * The readiness of `serve --http` (`GET /readyz`): the catalog is ready
 * (the server listens only after the first discovery), PostgreSQL answers
 * `SELECT 1` within `POSTGRES_PING_MS` when configured (one ping in flight
 * at a time), and the sandbox starts when scripts are on (a cached probe).
 * Fixed names and states only.
 */
export function serveReadiness(parts: ServeReadinessParts): () => Promise<ReadinessReport> {
  const { postgres, probeSandbox } = parts
  const ping =
    postgres &&
    singleFlight(() =>
      postgres.ping(POSTGRES_PING_MS).then(
        (): ReadinessState => 'ok',
        (): ReadinessState => 'failing',
      ),
    )
  const sandbox =
    probeSandbox && cachedSandbox(probeSandbox, parts.now ?? (() => performance.now()))
  return async () => {
    const off = (): Promise<ReadinessState> => Promise.resolve('off')
    const [pg, sb] = await Promise.all([(ping ?? off)(), (sandbox ?? off)()])
    const checks: Record<string, ReadinessState> = { catalog: 'ok', postgres: pg, sandbox: sb }
    return { ready: pg !== 'failing' && sb !== 'failing', checks }
  }
}
