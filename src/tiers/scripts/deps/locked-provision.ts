import type { SkillLock } from '../../../sources/lock/skill-lock.js'
import type { PinnedPackage, ProvisionOptions } from './provision-env.js'

/**
 * The pinned environments of a lockfile (`skillhost env --lock`) by
 * requirement set (`requirementSetKey`), for `ProvisionOptions.pins`.
 */
export function lockPins(lock: SkillLock): Map<string, readonly PinnedPackage[]> {
  const pins = new Map<string, readonly PinnedPackage[]>()
  for (const entry of lock.skills.values()) {
    for (const env of entry.environments ?? []) {
      pins.set([...env.requirements].sort().join('\n'), env.packages)
    }
  }
  return pins
}

/**
 * Provisioning for a locked deployment: exactly the environments `lock`
 * pins, with `--require-hashes`, and nothing resolved afresh
 * (`ProvisionOptions.locked`). Spread it into the deployer's own options:
 * `createScriptSandbox({ provision: { cacheDir, index, ...lockedProvision(lock) } })`.
 */
export function lockedProvision(lock: SkillLock): Pick<ProvisionOptions, 'pins' | 'locked'> {
  return { pins: lockPins(lock), locked: true }
}
