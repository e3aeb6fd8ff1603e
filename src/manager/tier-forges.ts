import { scriptsOffTools } from '../skill-model/script-tool-name.js'
import { type UnavailableTool, unavailableTool } from '../skill-model/unavailable-tool.js'
import type { SkillDescriptor } from '../sources/types.js'
import { createIsolatedForge } from '../tiers/isolated/tier.js'
import type { SessionWorkspace } from '../tiers/scripts/tier.js'
import type { TierForge } from '../tiers/tier-forge.js'
import type { ScriptTier } from './script-tier.js'
import type { SkillManagerConfig } from './types.js'
import { scriptConfigInForce } from './validate-config.js'

/** A tier this host has not enabled: its tools are reported unavailable, never registered. */
function offTier(unavailable: (d: SkillDescriptor) => UnavailableTool[]): TierForge {
  return { names: () => [], unavailable, forge: async () => [] }
}

/**
 * The tier-2 and tier-3 forges this configuration enables (or reports as
 * off). Tier 3 is on when `scriptTier` was loaded for the configuration's
 * `scripts`; off, its declared tools are reported without it.
 */
export function createTierForges(
  config: SkillManagerConfig,
  scriptTier: ScriptTier | undefined,
  workspace?: { open(): Promise<SessionWorkspace> },
): TierForge[] {
  const scripts = scriptConfigInForce(config)
  return [
    config.isolation
      ? createIsolatedForge(config.isolation, config.gate)
      : offTier((d) =>
          (d.isolatedTools ?? []).map((t) => unavailableTool(String(t.name), 'isolation-off')),
        ),
    scripts && scriptTier
      ? scriptTier.createScriptForge(scripts, config.gate, workspace ? { workspace } : {})
      : offTier(scriptsOffTools),
  ]
}
