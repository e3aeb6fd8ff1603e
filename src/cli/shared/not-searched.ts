import type { SkillHostErrorCode } from '../../common/index.js'
import type { SkillProblem } from '../../sources/index.js'

/** The code discovery gives a folder it did not search (docs/errors.md). */
const NOT_SEARCHED: SkillHostErrorCode = 'E_SKILL_NOT_SEARCHED'

/** How many of the folders not searched the text output names. */
export const NOT_SEARCHED_SHOWN = 5

/** True for a problem that marks a folder not searched. */
export const isNotSearched = (p: SkillProblem): boolean => p.code === NOT_SEARCHED

/**
 * The CLI's report of folders not searched (below the depth limit, or a
 * SKILL.md inside another skill): a count and the first few paths, shown by
 * `show`, with what to do. No lines when there are none.
 */
export function notSearchedLines(
  problems: readonly SkillProblem[],
  show: (path: string) => string,
): string[] {
  const folders = problems.filter(isNotSearched)
  if (folders.length === 0) return []
  const lines = [
    `warning: ${folders.length} folder${folders.length === 1 ? '' : 's'} not searched, so skills there are not served (below the search depth, or inside another skill's folder; raise --max-depth, or give the folder as a root):`,
    ...folders.slice(0, NOT_SEARCHED_SHOWN).map((p) => `  ${show(p.hostPath ?? p.location)}`),
  ]
  const more = folders.length - NOT_SEARCHED_SHOWN
  if (more > 0) lines.push(`  … and ${more} more (--json lists every one, with the reason)`)
  return lines
}
