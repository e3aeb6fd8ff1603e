import type { SessionWorkspace } from '../sandbox/session-workspace.js'
import type { SkillDescriptor } from '../sources/types.js'
import { createIsolatedForge } from '../tiers/isolated/isolated-forge.js'
import { createScriptForge } from '../tiers/scripts/script-forge.js'
import type { TierForge } from '../tiers/tier-forge.js'
import type { SkillManagerConfig } from './types.js'

/** A tier this host has not enabled: its tools are reported unavailable, never registered. */
function offTier(
  pick: (d: SkillDescriptor) => readonly { name: string }[] | undefined,
  toolName: (d: SkillDescriptor, name: string) => string,
  reason: string,
): TierForge {
  return {
    names: () => [],
    unavailable: (d) => (pick(d) ?? []).map((t) => ({ name: toolName(d, String(t.name)), reason })),
    forge: async () => [],
  }
}

/** The tier-2 and tier-3 forges this configuration enables (or reports as off). */
export function createTierForges(
  config: SkillManagerConfig,
  workspace?: () => Promise<SessionWorkspace>,
): TierForge[] {
  const permissive = config.unsafe?.scriptsPermissivePolicy
  return [
    config.isolation
      ? createIsolatedForge(config.isolation, config.gate)
      : offTier(
          (d) => d.isolatedTools,
          (_d, n) => n,
          'isolated tools are not enabled on this host',
        ),
    config.scripts
      ? createScriptForge(
          permissive
            ? { ...config.scripts, policy: permissive, hostEnvIsolated: true }
            : config.scripts,
          config.gate,
          workspace ? { workspace } : {},
        )
      : offTier(
          (d) => d.scripts,
          (d, n) => `run_${d.id}_${n}`,
          'scripts are not enabled on this host',
        ),
  ]
}
