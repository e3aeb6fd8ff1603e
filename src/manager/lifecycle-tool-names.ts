/**
 * The names of the five lifecycle tools, in one place: `lifecycle-tools.ts`
 * builds the tools under these names and the manager reserves them, so no
 * skill tool can take one.
 */
export const LIFECYCLE_TOOL = Object.freeze({
  list: 'list_skills',
  listLoaded: 'list_loaded_skills',
  refresh: 'refresh_skills',
  load: 'load_skill',
  unload: 'unload_skill',
} as const)

/** Names no skill tool may take: the lifecycle tools. Reader names are added by the manager. */
export const LIFECYCLE_TOOL_NAMES: readonly string[] = Object.freeze(Object.values(LIFECYCLE_TOOL))
