import { SkillHostError } from '../common/errors.js'

/** The most patterns one `pin` or `hide` list holds, and the longest pattern. */
export const MAX_ID_PATTERNS = 1_000
export const MAX_ID_PATTERN_LENGTH = 512

/**
 * Whether `id` matches `pattern`, a glob over the whole id: `*` stands for
 * any run of characters (none included), `?` for one, every other character
 * for itself. Greedy with one backtrack point, so the cost stays within
 * pattern length × id length whatever the pattern (no regular expression).
 */
export function matchesIdPattern(pattern: string, id: string): boolean {
  let p = 0
  let i = 0
  let star = -1
  let resume = 0
  while (i < id.length) {
    const c = pattern[p]
    if (c === '*') {
      star = p++
      resume = i
    } else if (c !== undefined && (c === '?' || c === id[i])) {
      p++
      i++
    } else if (star >= 0) {
      p = star + 1
      i = ++resume
    } else return false
  }
  while (pattern[p] === '*') p++
  return p === pattern.length
}

/**
 * A deployer's list of id patterns (`pin`, `hide`) as one predicate: true
 * when any pattern matches. `E_INVALID_SKILLS_CONFIG` for a list that is not
 * an array of 1–512-character strings (at most 1,000 of them).
 */
export function idPatternMatcher(
  patterns: readonly string[] | undefined,
  where: string,
): (id: string) => boolean {
  if (patterns === undefined) return () => false
  if (
    !Array.isArray(patterns) ||
    patterns.length > MAX_ID_PATTERNS ||
    !patterns.every(
      (p) => typeof p === 'string' && p.length > 0 && p.length <= MAX_ID_PATTERN_LENGTH,
    )
  ) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      `${where} must be an array of at most ${MAX_ID_PATTERNS} id patterns, each 1–${MAX_ID_PATTERN_LENGTH} characters (* and ? are wildcards).`,
    )
  }
  const list = [...patterns]
  if (list.length === 0) return () => false
  return (id) => list.some((p) => matchesIdPattern(p, id))
}
