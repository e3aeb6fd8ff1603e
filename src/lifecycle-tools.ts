import type { ToolGate } from './common/gate.js'
import type { Tool } from './common/tool.js'
import { lifecycleGate } from './lifecycle-tools/gated.js'
import { forgeListLoadedSkills } from './lifecycle-tools/list-loaded-skills.js'
import { forgeListSkills } from './lifecycle-tools/list-skills.js'
import { forgeLoadSkill } from './lifecycle-tools/load-skill.js'
import { forgeRefreshSkills } from './lifecycle-tools/refresh-skills.js'
import { forgeUnloadSkill } from './lifecycle-tools/unload-skill.js'
import { loadedScriptTier } from './manager/script-tier.js'
import type { SkillManager } from './manager/types.js'

/**
 * The default size budget of one `list_skills` page, in characters of the
 * tool's JSON result: about 8,000 tokens, room for some 25 entries with
 * descriptions at the spec's 1,024-character cap. A page stops before the
 * entry that would take it past the budget, so a catalog of long descriptions
 * takes more pages rather than flooding the context.
 */
export const DEFAULT_LIST_PAGE_CHARS = 32_000

/** Options for `forgeSkillTools`. */
export interface ForgeSkillToolsOptions {
  /** Gates the five tools; defaults to the manager's gate. */
  readonly gate?: ToolGate
  /** Page size cap for list_skills. Default 50. */
  readonly maxListLimit?: number
  /**
   * Size budget of one list_skills page, in characters of its JSON result.
   * Default `DEFAULT_LIST_PAGE_CHARS`. A page always holds at least one entry,
   * so a single entry larger than the budget still pages forward.
   */
  readonly maxListChars?: number
}

/**
 * The five lifecycle tools the model drives: `list_skills`,
 * `list_loaded_skills`, `refresh_skills`, `load_skill`, `unload_skill`. Each
 * is an ordinary `Tool` with JSON results, gated (the manager's gate unless
 * `options.gate` overrides it) before it does anything. When the manager runs
 * scripts, the workspace tools (`workspace_list`, `workspace_read`,
 * `workspace_write`, tier `workspace`) follow them. Register them with the
 * rest of your host tools. A skill marked `disableModelInvocation` is not in
 * `list_skills`, and `load_skill` refuses it with `E_SKILL_NOT_FOUND`.
 */
export function forgeSkillTools(
  manager: SkillManager,
  options: ForgeSkillToolsOptions = {},
): Tool[] {
  const gate = options.gate ?? manager.gate
  const g = lifecycleGate(gate)
  const maxLimit = options.maxListLimit ?? 50
  const maxChars = options.maxListChars ?? DEFAULT_LIST_PAGE_CHARS
  const workspace = manager.workspace
  return [
    forgeListSkills(manager, g, maxLimit, maxChars),
    forgeListLoadedSkills(manager, g),
    forgeRefreshSkills(manager, g),
    forgeLoadSkill(manager, g),
    forgeUnloadSkill(manager, g),
    // A manager has a workspace only when it has scripts, so it loaded tier 3.
    ...(workspace
      ? (loadedScriptTier()?.forgeWorkspaceTools(() => workspace.open(), gate) ?? [])
      : []),
  ]
}
