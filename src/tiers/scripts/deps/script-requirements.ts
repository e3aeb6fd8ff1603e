import { join } from 'node:path'
import { inferRequirements } from './infer-imports.js'
import { readDeclarationSource as text } from './read-declaration-source.js'
import { readPep723, readRequirementsTxt, readSkillMdInstalls } from './read-requirements.js'
import type { Requirement } from './requirement.js'

/**
 * A script's requirements, and whether they are only a guess: inferred from
 * its imports, or read from SKILL.md's prose install lines (which name what
 * the whole skill may use, not what this script needs). A guess is built
 * with provisioning and never checked without it; a declaration (PEP 723,
 * requirements.txt) is checked before the script runs.
 */
export interface ScriptRequirements {
  readonly requirements: Requirement[]
  readonly inferred: boolean
}

/**
 * What one python script of a skill copy needs installed: its PEP 723
 * `dependencies` when it has a block (they are the script's own, complete
 * list), else the skill's `requirements.txt` and the unambiguous install
 * lines of its SKILL.md, first mention of a name winning (marked `inferred`
 * when SKILL.md alone names them); when the skill declares nothing at all
 * (most public skills), the packages the script imports at module level
 * (`inferRequirements`), marked `inferred`. Sorted
 * by name. Throws `E_SKILL_REQUIREMENTS_INVALID` for a declaration outside
 * the subset.
 */
export async function scriptRequirementsOf(
  root: string,
  scriptPath: string,
): Promise<ScriptRequirements> {
  const own = readPep723((await text(join(root, scriptPath))) ?? '')
  const found = new Map<string, Requirement>()
  if (own !== undefined) {
    for (const r of own.requirements) if (!found.has(r.name)) found.set(r.name, r)
    return { requirements: sorted(found), inferred: false }
  }
  const txt = await text(join(root, 'requirements.txt'))
  const md = await text(join(root, 'SKILL.md'))
  for (const r of [
    ...(txt === undefined ? [] : readRequirementsTxt(txt)),
    ...(md === undefined ? [] : readSkillMdInstalls(md)),
  ]) {
    if (!found.has(r.name)) found.set(r.name, r)
  }
  if (txt !== undefined) return { requirements: sorted(found), inferred: false }
  // Only SKILL.md's install lines: a guess for the whole skill, not this script's declaration.
  if (found.size > 0) return { requirements: sorted(found), inferred: true }
  return { requirements: await inferRequirements(root, scriptPath), inferred: true }
}

function sorted(found: Map<string, Requirement>): Requirement[] {
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** `scriptRequirementsOf`'s requirements, declared or inferred. */
export async function scriptRequirements(root: string, scriptPath: string): Promise<Requirement[]> {
  return (await scriptRequirementsOf(root, scriptPath)).requirements
}
