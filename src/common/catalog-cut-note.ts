/**
 * The sentence every cut `<available_skills>` block ends with: how many
 * skills it leaves out and that `listTool` called with a query finds them,
 * so no catalog is cut silently. The manager fills in its list tool
 * (`moreSkillsNote`); a host rendering its own block passes
 * `LIFECYCLE_TOOL.list`.
 */
export function catalogCutNote(hidden: number, listTool: string): string {
  const what = hidden === 1 ? '1 more skill is' : `${hidden} more skills are`
  return `<more_skills count="${hidden}">${what} not listed here; call ${listTool} with a query (words from what you need) to find them.</more_skills>`
}
