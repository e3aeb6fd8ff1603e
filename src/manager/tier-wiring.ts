import {
  BUILTIN_ARTIFACT_KINDS,
  forgeArtifactReaders,
  RESERVED_READER_NAMES,
  type SpooledArtifact,
} from '../common/artifacts/index.js'
import type { Tool } from '../common/tool.js'
import type { SessionWorkspaceSlot } from '../tiers/scripts/tier.js'
import type { TierForge } from '../tiers/tier-forge.js'
import { LIFECYCLE_TOOL_NAMES } from './lifecycle-tool-names.js'
import type { ScriptTier } from './script-tier.js'
import { DEFAULT_SKILL_DIR } from './skill-arguments.js'
import { createTierForges } from './tier-forges.js'
import type { SkillManagerConfig } from './types.js'
import { scriptConfigInForce } from './validate-config.js'

/** What one manager's configuration turns on for every skill it loads, built once. */
export interface TierWiring {
  /** The tier-2 and tier-3 forges (an off tier reports its tools unavailable). */
  readonly tiers: readonly TierForge[]
  /** Tier 3, loaded when the configuration has `scripts` (`loadScriptTier`). */
  readonly scriptTier: ScriptTier | undefined
  /** The conversation's session workspace when scripts are on; the manager disposes it last. */
  readonly workspace: SessionWorkspaceSlot | undefined
  /** The artifact reader tools (built-in kinds and the host's `artifactKinds`). */
  readonly readers: readonly Tool[]
  /** Tool names no skill may take: the readers', the lifecycle tools', the workspace tools'. */
  readonly reserved: ReadonlySet<string>
  /**
   * The skill's folder as its scripts see it: the script tier's skill mount,
   * or `DEFAULT_SKILL_DIR` when scripts are off. Bodies name it for
   * `${CLAUDE_SKILL_DIR}`, so a path the model copies from them is one the
   * script tool accepts.
   */
  readonly skillDir: string
}

/**
 * Builds the tiers, the session workspace, the artifact readers and the
 * reserved names from a validated configuration. The workspace is created
 * here but opened only when a script tool first needs it.
 */
export function wireTiers(
  config: SkillManagerConfig,
  scriptTier: ScriptTier | undefined,
): TierWiring {
  const readers = forgeArtifactReaders([
    ...BUILTIN_ARTIFACT_KINDS,
    ...Object.values(config.artifactKinds ?? {}).map((f) => f() as typeof SpooledArtifact),
  ])
  const reserved = new Set([
    ...RESERVED_READER_NAMES,
    ...readers.map((t) => t.name),
    ...LIFECYCLE_TOOL_NAMES,
    ...(scriptTier ? Object.values(scriptTier.WORKSPACE_TOOL) : []),
  ])
  const workspace =
    scriptTier && config.scripts ? new scriptTier.SessionWorkspaceSlot(config.scripts) : undefined
  const tiers = createTierForges(config, scriptTier, workspace)
  const skillDir = scriptConfigInForce(config)?.translator.skillMount ?? DEFAULT_SKILL_DIR
  return { tiers, scriptTier, workspace, readers, reserved, skillDir }
}
