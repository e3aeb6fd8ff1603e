import { isArtifactClass } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from '../sandbox/policy.js'
import type { SkillManagerConfig } from './types.js'

function invalid(message: string): SkillHostError {
  return new SkillHostError('E_INVALID_SKILLS_CONFIG', message)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/**
 * A deployer's session workspace must be a directory the session policy lets
 * scripts write, named absolutely, with a positive size cap: caught here, at
 * construction, rather than as a widened policy on the first call.
 */
function checkSessionWorkspace(value: unknown, allowWrite: readonly string[]): void {
  if (value === undefined) return
  if (!isObject(value)) throw invalid('scripts.sessionWorkspace must be an object.')
  const { dir, maxBytes } = value as { dir?: unknown; maxBytes?: unknown }
  if (dir !== undefined) {
    const path = typeof dir === 'string' ? normalizeAbsolutePath(dir) : undefined
    if (path === undefined) throw invalid('scripts.sessionWorkspace.dir must be an absolute path.')
    if (!allowWrite.some((w) => isPathInside(path, w))) {
      throw invalid(
        'scripts.sessionWorkspace.dir must lie inside scripts.policy.filesystem.allowWrite (scripts write there).',
      )
    }
  }
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || (maxBytes as number) < 1)) {
    throw invalid('scripts.sessionWorkspace.maxBytes must be a positive integer.')
  }
}

/**
 * Validates a manager configuration and returns the unsafe controls it puts in
 * force. Fails fast with `E_INVALID_SKILLS_CONFIG` naming the first problem.
 */
export function validateManagerConfig(config: SkillManagerConfig): string[] {
  if (!isObject(config)) throw invalid('createSkillManager needs a configuration object.')
  if (!Array.isArray(config.sources) || config.sources.length === 0) {
    throw invalid('`sources` must be a non-empty array of SkillSource objects.')
  }
  const ids = new Set<string>()
  for (const [i, source] of config.sources.entries()) {
    if (
      !isObject(source) ||
      typeof source.id !== 'string' ||
      typeof source.discover !== 'function'
    ) {
      throw invalid(
        `sources[${i}] is not a SkillSource (it needs an id and discover/descriptor/read/stat).`,
      )
    }
    for (const method of ['descriptor', 'read', 'stat'] as const) {
      if (typeof source[method] !== 'function')
        throw invalid(`Source '${source.id}' has no ${method}() method.`)
    }
    if (ids.has(source.id))
      throw invalid(`Two sources share the id '${source.id}'; source ids must be unique.`)
    ids.add(source.id)
  }
  if (typeof config.gate !== 'function') {
    throw invalid(
      '`gate` is required: pass a ToolGate (use `async () => {}` to allow everything explicitly).',
    )
  }
  if (
    config.defaultChannel !== undefined &&
    config.defaultChannel !== 'inline' &&
    config.defaultChannel !== 'handle' &&
    config.defaultChannel !== 'auto'
  ) {
    throw invalid("`defaultChannel` must be 'inline', 'handle' or 'auto'.")
  }
  const kinds = config.artifactKinds ?? {}
  if (!isObject(kinds)) throw invalid('`artifactKinds` must map kind names to factories.')
  for (const [kind, factory] of Object.entries(kinds)) {
    const cls = typeof factory === 'function' ? safeCall(factory) : undefined
    if (!isArtifactClass(cls)) {
      throw invalid(`artifactKinds['${kind}'] must be a factory returning a SpooledArtifact class.`)
    }
  }
  for (const [skill, tools] of Object.entries(config.artifactBindings ?? {})) {
    if (!isObject(tools))
      throw invalid(`artifactBindings['${skill}'] must map tool names to kind names.`)
    for (const [tool, kind] of Object.entries(tools)) {
      if (typeof kind !== 'string' || !Object.hasOwn(kinds, kind)) {
        throw invalid(
          `artifactBindings['${skill}']['${tool}'] names kind '${String(kind)}', which is not in artifactKinds.`,
        )
      }
    }
  }
  const unsafe: string[] = []
  if (config.isolation !== undefined) {
    if (!isObject(config.isolation)) throw invalid('`isolation` must be an object.')
    checkTimeouts(
      'isolation',
      config.isolation.maxTimeoutSeconds,
      config.isolation.defaultTimeoutSeconds,
    )
    if (typeof config.isolation.resolveGuest !== 'function') {
      if (config.unsafe?.isolatedToolsInProcess !== true) {
        throw invalid(
          '`isolation` needs `resolveGuest` (e.g. createQuickJsGuest() from skillhost/isolation); the in-process guest cannot be killed and needs `unsafe.isolatedToolsInProcess: true`.',
        )
      }
      unsafe.push(
        'isolatedToolsInProcess: isolated tools run on the host thread and cannot be hard-killed',
      )
    }
  }
  if (config.scripts !== undefined) {
    const s = config.scripts as unknown as Record<string, unknown>
    if (!isObject(s)) throw invalid('`scripts` must be an object.')
    for (const key of ['handle', 'workspace', 'policy', 'translator', 'interpreters'] as const) {
      if (!isObject(s[key])) throw invalid(`scripts.${key} is required.`)
    }
    if (!Array.isArray(s.interpreterReadPaths)) {
      throw invalid(
        'scripts.interpreterReadPaths must be an explicit array (empty is fine) so it can be reviewed.',
      )
    }
    checkTimeouts('scripts', s.maxTimeoutSeconds, s.defaultTimeoutSeconds)
    if (!Number.isInteger(s.maxOutputBytes) || (s.maxOutputBytes as number) < 1) {
      throw invalid('scripts.maxOutputBytes must be a positive integer.')
    }
    if (s.undeclared !== undefined && s.undeclared !== 'allow' && s.undeclared !== 'deny') {
      throw invalid("scripts.undeclared must be 'allow' or 'deny'.")
    }
    checkSessionWorkspace(s.sessionWorkspace, config.scripts.policy.filesystem.allowWrite)
    const permissive = config.unsafe?.scriptsPermissivePolicy
    if (s.hostEnvIsolated !== true && permissive === undefined) {
      throw invalid('scripts.hostEnvIsolated must be true: scripts run with an empty environment.')
    }
    if (permissive !== undefined) {
      unsafe.push(
        'scriptsPermissivePolicy: scripts run under a deployer-supplied policy, not a derived one',
      )
    }
  } else if (config.unsafe?.scriptsPermissivePolicy !== undefined) {
    throw invalid('unsafe.scriptsPermissivePolicy was given without a `scripts` configuration.')
  }
  if (config.autoRefresh !== undefined && typeof config.autoRefresh !== 'boolean') {
    const ms = (config.autoRefresh as { intervalMs?: unknown }).intervalMs
    if (typeof ms !== 'number' || !(ms >= 100))
      throw invalid('autoRefresh.intervalMs must be a number ≥ 100.')
  }
  return unsafe
}

function checkTimeouts(where: string, max: unknown, dflt: unknown): void {
  if (typeof max !== 'number' || !Number.isFinite(max) || max < 1) {
    throw invalid(`${where}.maxTimeoutSeconds must be a number ≥ 1.`)
  }
  if (typeof dflt !== 'number' || dflt < 1 || dflt > max) {
    throw invalid(`${where}.defaultTimeoutSeconds must be between 1 and maxTimeoutSeconds.`)
  }
}

function safeCall(factory: () => unknown): unknown {
  try {
    return factory()
  } catch {
    return undefined
  }
}
