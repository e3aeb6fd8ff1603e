import { MAX_SKILL_REF_LENGTH } from '../skill-model/skill-copy-ref.js'

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

/**
 * The lifecycle-style tool the manager registers in a turn context while a
 * skill is projected there, and takes out when none is: it reads the files
 * loaded skills ship.
 */
export const READ_SKILL_FILE_TOOL = 'read_skill_file'

/**
 * Names no skill tool may take: the five lifecycle tools and
 * `read_skill_file`. Reader names are added by the manager.
 */
export const LIFECYCLE_TOOL_NAMES: readonly string[] = Object.freeze([
  ...Object.values(LIFECYCLE_TOOL),
  READ_SKILL_FILE_TOOL,
])

/** What a cut `<available_skills>` block leaves out, for its closing line. */
export interface CatalogCut {
  /** Skills in the model's catalog, shown or not. */
  readonly total: number
  /** Skills the block does not name at all. */
  readonly notShown: number
  /** Skills the block names without a description. */
  readonly namesOnly: number
}

/**
 * The closing line of every cut `<available_skills>` block: how many skills
 * there are, how many it does not show or shows by name only, and how the
 * model reaches them, so no catalog is cut silently.
 */
export function moreSkillsNote(cut: CatalogCut): string {
  const parts: string[] = []
  if (cut.notShown > 0) parts.push(`${cut.notShown} not shown here`)
  if (cut.namesOnly > 0) parts.push(`${cut.namesOnly} shown by name only`)
  const total = cut.total === 1 ? '1 skill' : `${cut.total} skills`
  return `<more_skills total="${cut.total}" not_shown="${cut.notShown}" names_only="${cut.namesOnly}">${total} in all: ${parts.join(', ')}. Call ${LIFECYCLE_TOOL.list} with a query (words from what you need) to find them and read their descriptions.</more_skills>`
}

/** The `skill` argument of every tool that names a skill: an id, or a shadowed copy's ref. */
export const SKILL_ID_PROPERTY = Object.freeze({
  type: 'string',
  minLength: 1,
  maxLength: MAX_SKILL_REF_LENGTH,
  description:
    "The skill's ref as list_skills shows it: its id, or for a shadowed copy a ref such as source:2/folder/skill-id.",
})
