import { isArtifactClass } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import { validateIsolationConfig } from '../tiers/isolated/tier.js'
import { type SkillScriptConfig, validateSkillScriptConfig } from '../tiers/scripts/tier.js'
import { checkModelCatalogOptions } from './model-catalog.js'
import type { SkillManagerConfig } from './types.js'

function invalid(message: string): SkillHostError {
  return new SkillHostError('E_INVALID_SKILLS_CONFIG', message)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
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
    const { inProcess } = validateIsolationConfig(
      config.isolation,
      config.unsafe?.isolatedToolsInProcess === true,
    )
    if (inProcess) {
      unsafe.push(
        'isolatedToolsInProcess: isolated tools run on the host thread and cannot be hard-killed',
      )
    }
  }
  const permissive = config.unsafe?.scriptsPermissivePolicy
  if (config.scripts !== undefined) {
    validateSkillScriptConfig(scriptConfigInForce(config) as SkillScriptConfig)
    if (permissive !== undefined) {
      unsafe.push(
        'scriptsPermissivePolicy: scripts run within a deployer-supplied session policy instead of scripts.policy',
      )
    }
  } else if (permissive !== undefined) {
    throw invalid('unsafe.scriptsPermissivePolicy was given without a `scripts` configuration.')
  }
  if (config.autoRefresh !== undefined && typeof config.autoRefresh !== 'boolean') {
    const ms = (config.autoRefresh as { intervalMs?: unknown }).intervalMs
    if (typeof ms !== 'number' || !(ms >= 100))
      throw invalid('autoRefresh.intervalMs must be a number ≥ 100.')
  }
  checkModelCatalogOptions(config.catalog)
  return unsafe
}

function safeCall(factory: () => unknown): unknown {
  try {
    return factory()
  } catch {
    return undefined
  }
}

/**
 * The tier-3 configuration a manager runs with: `scripts`, with the session
 * policy replaced by `unsafe.scriptsPermissivePolicy` when the deployer gave
 * one. Per-call policies are still derived and checked against it, and the
 * environment stays empty. The one place both the validator and the script
 * forge take it from.
 */
export function scriptConfigInForce(config: SkillManagerConfig): SkillScriptConfig | undefined {
  const scripts = config.scripts
  const permissive = config.unsafe?.scriptsPermissivePolicy
  if (scripts === undefined || permissive === undefined) return scripts
  return { ...scripts, policy: permissive }
}
