import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SkillHostMetrics } from '../../common/index.js'

/** The paths `serveMcpHttp` answers beside its MCP endpoint, for orchestrators and scrapers. */
export const PROBE_PATHS = Object.freeze({
  health: '/healthz',
  ready: '/readyz',
  metrics: '/metrics',
} as const)

/** One readiness check's state: it answers, it does not, or it is not configured here. */
export type ReadinessState = 'ok' | 'failing' | 'off'

/**
 * What a readiness check reports: ready or not, and each part by a fixed
 * name (`catalog`, `postgres`, `sandbox`, ...) with its state. Names and
 * states only: never a host path, a URL or an error's message.
 */
export interface ReadinessReport {
  readonly ready: boolean
  readonly checks: Readonly<Record<string, ReadinessState>>
}

/**
 * Longest a readiness check may take before `/readyz` answers unready
 * (`checks: { readiness: 'failing' }`): an orchestrator's probe must get an
 * answer well within its own timeout (Kubernetes: 1 s by default, set it
 * higher).
 */
export const READINESS_DEADLINE_MS = 3_000

/** How the probe paths are served (`ServeMcpHttpOptions`). */
export interface HttpProbeConfig {
  readonly readiness: (() => Promise<ReadinessReport>) | undefined
  /** `/healthz` and `/readyz` without the bearer token from anywhere, not only loopback. */
  readonly healthPublic: boolean
  readonly metrics: SkillHostMetrics | undefined
  /** `/metrics` without the bearer token. */
  readonly metricsPublic: boolean
}

/** True for a peer on this machine: 127.0.0.0/8, ::1, or either mapped. */
function fromLoopback(req: IncomingMessage): boolean {
  const address = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '')
  return address === '::1' || address.startsWith('127.')
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

/** The readiness report, or unready when the check throws or misses `READINESS_DEADLINE_MS`. */
async function readiness(check: HttpProbeConfig['readiness']): Promise<ReadinessReport> {
  if (!check) return { ready: true, checks: {} }
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<ReadinessReport>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, checks: { readiness: 'failing' } }),
      READINESS_DEADLINE_MS,
    )
  })
  try {
    return await Promise.race([
      check().catch((): ReadinessReport => ({ ready: false, checks: { readiness: 'failing' } })),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Answers a probe path and returns true, or returns false for any other
 * path (and for `/metrics` when no metrics are served). `authorized` is
 * whether the request carries the bearer token (or none is required).
 * Health and readiness need it only from beyond loopback without
 * `healthPublic`; metrics always unless `metricsPublic`. Never a session:
 * nothing here touches the session table.
 */
export async function answerProbe(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  config: HttpProbeConfig,
  authorized: boolean,
): Promise<boolean> {
  const isMetrics = pathname === PROBE_PATHS.metrics
  if (!isMetrics && pathname !== PROBE_PATHS.health && pathname !== PROBE_PATHS.ready) return false
  if (isMetrics && !config.metrics) return false
  const open = isMetrics ? config.metricsPublic : config.healthPublic || fromLoopback(req)
  if (!authorized && !open) {
    res.setHeader('www-authenticate', 'Bearer')
    json(res, 401, { status: 'unauthorized' })
    return true
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD')
    json(res, 405, { status: 'method not allowed' })
    return true
  }
  if (pathname === PROBE_PATHS.health) json(res, 200, { status: 'ok' })
  else if (pathname === PROBE_PATHS.ready) {
    const report = await readiness(config.readiness)
    json(res, report.ready ? 200 : 503, {
      status: report.ready ? 'ready' : 'unready',
      checks: report.checks,
    })
  } else if (config.metrics) {
    const text = await config.metrics.registry.metrics()
    res.writeHead(200, { 'content-type': config.metrics.registry.contentType })
    res.end(text)
  }
  return true
}
