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

/**
 * The sentence every cut `<available_skills>` block ends with: how many skills
 * it leaves out and how the model finds them, so no catalog is cut silently.
 */
export function moreSkillsNote(hidden: number): string {
  const what = hidden === 1 ? '1 more skill is' : `${hidden} more skills are`
  return `<more_skills count="${hidden}">${what} not listed here; call ${LIFECYCLE_TOOL.list} with a query (words from what you need) to find them.</more_skills>`
}

/** The `skill` argument of every tool that names a skill: an id, or a shadowed copy's ref. */
export const SKILL_ID_PROPERTY = Object.freeze({
  type: 'string',
  minLength: 1,
  maxLength: MAX_SKILL_REF_LENGTH,
  description:
    "The skill's ref as list_skills shows it: its id, or for a shadowed copy a ref such as source:2/folder/skill-id.",
})
