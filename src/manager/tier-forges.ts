import type { SessionWorkspace } from '../sandbox/session-workspace.js'
import { type UnavailableTool, unavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor } from '../sources/types.js'
import { createIsolatedForge } from '../tiers/isolated/isolated-forge.js'
import { scriptsOffTools } from '../tiers/scripts/script-availability.js'
import { createScriptForge } from '../tiers/scripts/script-forge.js'
import type { TierForge } from '../tiers/tier-forge.js'
import type { SkillManagerConfig } from './types.js'

/** A tier this host has not enabled: its tools are reported unavailable, never registered. */
function offTier(unavailable: (d: SkillDescriptor) => UnavailableTool[]): TierForge {
  return { names: () => [], unavailable, forge: async () => [] }
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
      : offTier((d) =>
          (d.isolatedTools ?? []).map((t) => unavailableTool(String(t.name), 'isolation-off')),
        ),
    config.scripts
      ? createScriptForge(
          permissive
            ? { ...config.scripts, policy: permissive, hostEnvIsolated: true }
            : config.scripts,
          config.gate,
          workspace ? { workspace } : {},
        )
      : offTier(scriptsOffTools),
  ]
}
