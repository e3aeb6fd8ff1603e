import { SkillHostError } from '../../common/errors.js'
import { resolveIsolationLimits } from './limits.js'
import type { SkillIsolationConfig } from './types.js'

function bad(field: string, why: string): never {
  throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `isolation.${field} ${why}`)
}

/**
 * The one validator of a tier-2 configuration, called by `createSkillManager`.
 * Throws `E_INVALID_SKILLS_CONFIG` naming the field unless `config` has
 * `1 <= defaultTimeoutSeconds <= maxTimeoutSeconds`, well-formed `limits`,
 * and either a `resolveGuest` or `inProcessAllowed` (the deployer's
 * `unsafe.isolatedToolsInProcess`). Returns whether the in-process guest, which
 * cannot be hard-killed, will be used.
 */
export function validateIsolationConfig(
  config: SkillIsolationConfig,
  inProcessAllowed: boolean,
): { readonly inProcess: boolean } {
  if (typeof config !== 'object' || config === null) {
    throw new SkillHostError('E_INVALID_SKILLS_CONFIG', 'isolation must be an object.')
  }
  const max: unknown = config.maxTimeoutSeconds
  if (typeof max !== 'number' || !Number.isFinite(max) || max < 1) {
    bad('maxTimeoutSeconds', 'must be a number ≥ 1.')
  }
  const def: unknown = config.defaultTimeoutSeconds
  if (typeof def !== 'number' || def < 1 || def > max) {
    bad('defaultTimeoutSeconds', 'must be between 1 and maxTimeoutSeconds.')
  }
  if (config.limits !== undefined) resolveIsolationLimits(config.limits)
  if (typeof config.resolveGuest === 'function') return { inProcess: false }
  if (!inProcessAllowed) {
    bad(
      'resolveGuest',
      'is required (e.g. createQuickJsGuest() from skillhost/isolation); the in-process guest cannot be killed and needs `unsafe.isolatedToolsInProcess: true`.',
    )
  }
  return { inProcess: true }
}
