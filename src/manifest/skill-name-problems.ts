/** Longest skill name agentskills.io allows. */
export const MAX_SKILL_NAME_LENGTH = 64

/**
 * Every way `name` breaks the agentskills.io name rule: 1–64 characters of
 * lowercase ASCII letters, digits and `-`, with no leading, trailing or
 * doubled `-`. An empty array means the name is valid.
 */
export function skillNameProblems(name: string): string[] {
  const problems: string[] = []
  if (name.length === 0) return ['name is empty']
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    problems.push(`name is ${name.length} characters; the limit is ${MAX_SKILL_NAME_LENGTH}`)
  }
  if (/[A-Z]/.test(name)) problems.push('name has uppercase letters; use lowercase')
  if (/[^A-Za-z0-9-]/.test(name)) {
    problems.push('name may contain only lowercase letters, digits and "-"')
  }
  if (name.startsWith('-') || name.endsWith('-'))
    problems.push('name must not start or end with "-"')
  if (name.includes('--')) problems.push('name must not contain "--"')
  return problems
}

/** True when `name` satisfies the agentskills.io name rule. */
export function isValidSkillName(name: string): boolean {
  return skillNameProblems(name).length === 0
}
