import { isArtifactClass } from '../common/artifacts/index.js'
import { SkillHostError } from '../common/errors.js'
import { validateIsolationConfig } from '../tiers/isolated/tier.js'
import type { SkillScriptConfig } from '../tiers/scripts/tier.js'
import { checkModelCatalogOptions } from './model-catalog.js'
import { loadScriptTier, type ScriptTier } from './script-tier.js'
import type { SkillManagerConfig } from './types.js'

function invalid(message: string): SkillHostError {
  return new SkillHostError('E_INVALID_SKILLS_CONFIG', message)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** A valid configuration's unsafe controls in force, and tier 3 when it has `scripts`. */
export interface ValidatedManagerConfig {
  readonly unsafe: string[]
  readonly scriptTier: ScriptTier | undefined
}

/**
 * Validates a manager configuration and returns the unsafe controls it puts in
 * force. Fails fast with `E_INVALID_SKILLS_CONFIG` naming the first problem.
 * Tier 3 is loaded (`loadScriptTier`) only when the configuration has
 * `scripts`, to validate them with the tier's one validator.
 */
export async function validateManagerConfig(
  config: SkillManagerConfig,
): Promise<ValidatedManagerConfig> {
  if (!isObject(config)) throw invalid('createSkillManager needs a configuration object.')
  checkSources(config.sources)
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
  checkArtifacts(config)
  const unsafe = checkIsolation(config)
  const scriptTier = config.scripts === undefined ? undefined : await loadScriptTier()
  unsafe.push(...checkScripts(config, scriptTier))
  if (config.autoRefresh !== undefined && typeof config.autoRefresh !== 'boolean') {
    const ms = (config.autoRefresh as { intervalMs?: unknown }).intervalMs
    if (typeof ms !== 'number' || !(ms >= 100))
      throw invalid('autoRefresh.intervalMs must be a number ≥ 100.')
  }
  checkModelCatalogOptions(config.catalog)
  return { unsafe, scriptTier }
}

/** Each source is a SkillSource and its id is unique. */
function checkSources(sources: SkillManagerConfig['sources']): void {
  if (!Array.isArray(sources) || sources.length === 0) {
    throw invalid('`sources` must be a non-empty array of SkillSource objects.')
  }
  const ids = new Set<string>()
  for (const [i, source] of sources.entries()) {
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
}

/** `artifactKinds` are artifact classes, and every binding names one of them. */
function checkArtifacts(config: SkillManagerConfig): void {
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
}

/** Tier 2's configuration, by its one validator; the unsafe control it puts in force. */
function checkIsolation(config: SkillManagerConfig): string[] {
  if (config.isolation === undefined) return []
  const { inProcess } = validateIsolationConfig(
    config.isolation,
    config.unsafe?.isolatedToolsInProcess === true,
  )
  return inProcess
    ? ['isolatedToolsInProcess: isolated tools run on the host thread and cannot be hard-killed']
    : []
}

/** Tier 3's configuration in force, by the tier's one validator; the unsafe control it puts in force. */
function checkScripts(config: SkillManagerConfig, tier: ScriptTier | undefined): string[] {
  const permissive = config.unsafe?.scriptsPermissivePolicy
  if (tier === undefined) {
    if (permissive !== undefined)
      throw invalid('unsafe.scriptsPermissivePolicy was given without a `scripts` configuration.')
    return []
  }
  tier.validateSkillScriptConfig(scriptConfigInForce(config) as SkillScriptConfig)
  return permissive === undefined
    ? []
    : [
        'scriptsPermissivePolicy: scripts run within a deployer-supplied session policy instead of scripts.policy',
      ]
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
