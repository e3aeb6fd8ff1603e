import type { SkillDescriptor } from '../sources/types.js'
import type { TierForge } from './prepare-skill.js'
import type { SkillManagerConfig } from './types.js'

function offTier(
  pick: (d: SkillDescriptor) => readonly { name: string }[] | undefined,
  toolName: (d: SkillDescriptor, name: string) => string,
  reason: string,
): TierForge {
  return {
    names: () => [],
    unavailable: (d) => (pick(d) ?? []).map((t) => ({ name: toolName(d, t.name), reason })),
    forge: async () => [],
  }
}

/** The tier-2 and tier-3 forges this configuration enables (or reports as off). */
export function createTierForges(config: SkillManagerConfig): TierForge[] {
  void config
  return [
    offTier((d) => d.isolatedTools, (_d, n) => n, 'isolated tools are not enabled on this host'),
    offTier((d) => d.scripts, (d, n) => `run_${d.id}_${n}`, 'scripts are not enabled on this host'),
  ]
}
