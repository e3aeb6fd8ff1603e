export { createSkillManager } from './create-skill-manager.js'
export { LIFECYCLE_TOOL, LIFECYCLE_TOOL_NAMES } from './lifecycle-tool-names.js'
export type {
  ArtifactKindFactory,
  CatalogEntry,
  CatalogPage,
  CatalogSearch,
  LoadResult,
  RefreshResult,
  SkillCatalog,
  SkillChannel,
  SkillManager,
  SkillManagerConfig,
  SkillManagerEvent,
  SkillManagerUnsafeOptions,
  SkillMiddleware,
  SourceError,
  UnloadResult,
} from './types.js'
