/**
 * The manager (`createSkillManager`): one conversation's skills, from the
 * catalog its sources discover to the records of loaded skills; load,
 * unload and refresh through one mutation queue; the projection of bodies
 * and tools into each turn; the tiers it wires; the `<available_skills>`
 * block. This list is the manager's share of the root entry (`skillhost`),
 * re-exported whole by `src/index.ts`.
 */

/** What a script tool of a loaded skill runs with (`LoadResult.interpreters`). */
export type { ScriptToolInterpreter } from '../tiers/scripts/tier.js'
export { AUTO_INLINE_MAX_CHARS } from './body-channel.js'
export {
  type CatalogBudget,
  catalogBudgetProblem,
  DEFAULT_CATALOG_SHARE,
} from './catalog-budget.js'
export { createSkillManager } from './create-skill-manager.js'
export {
  LIFECYCLE_TOOL,
  LIFECYCLE_TOOL_NAMES,
  READ_SKILL_FILE_TOOL,
} from './lifecycle-tool-names.js'
export type { AvailableSkillsOptions, ModelCatalogOptions } from './model-catalog.js'
export {
  type AvailableSkill,
  CHARS_PER_TOKEN,
  estimateTokens,
  type RenderAvailableSkillsOptions,
  type RenderedAvailableSkills,
  renderAvailableSkills,
} from './render-available-skills.js'
export type {
  CatalogChangeFeed,
  SkillSessionSkill,
  SkillSessionState,
  SkillSessionStore,
  SkillSessionWorkspace,
  StoredSkillSession,
} from './session-state.js'
export { MAX_SKILL_ARGUMENTS_LENGTH } from './skill-arguments.js'
export { LOAD_RESULT_FILES, LOAD_RESULT_FILES_CHARS, SKILL_ROOT_PATH } from './skill-files.js'
export type {
  ArtifactKindFactory,
  CatalogCounts,
  CatalogEntry,
  CatalogPage,
  CatalogSearch,
  LoadedSkillInfo,
  LoadOptions,
  LoadResult,
  RefreshOutcome,
  RefreshResult,
  ResolvedSkillChannel,
  SkillCatalog,
  SkillChannel,
  SkillFileContent,
  SkillFileInfo,
  SkillFilePage,
  SkillFilesQuery,
  SkillManager,
  SkillManagerConfig,
  SkillManagerEvent,
  SkillManagerUnsafeOptions,
  SkillManifestQuery,
  SkillMiddleware,
  SourceError,
  UnloadResult,
} from './types.js'
