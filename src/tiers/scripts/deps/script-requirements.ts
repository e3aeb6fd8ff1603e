import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  MAX_DECLARATION_SOURCE_CHARS,
  readPep723,
  readRequirementsTxt,
  readSkillMdInstalls,
} from './read-requirements.js'
import type { Requirement } from './requirement.js'

async function text(path: string): Promise<string | undefined> {
  try {
    const buf = await readFile(path)
    return buf.subarray(0, MAX_DECLARATION_SOURCE_CHARS).toString('utf8')
  } catch {
    return undefined
  }
}

/**
 * What one python script of a skill copy needs installed: its PEP 723
 * `dependencies` when it has a block (they are the script's own, complete
 * list), else the skill's `requirements.txt` and the unambiguous install
 * lines of its SKILL.md, first mention of a name winning. Sorted by name.
 * Throws `E_SKILL_REQUIREMENTS_INVALID` for a declaration outside the subset.
 */
export async function scriptRequirements(root: string, scriptPath: string): Promise<Requirement[]> {
  const own = readPep723((await text(join(root, scriptPath))) ?? '')
  const found = new Map<string, Requirement>()
  if (own !== undefined) {
    for (const r of own.requirements) if (!found.has(r.name)) found.set(r.name, r)
  } else {
    const txt = await text(join(root, 'requirements.txt'))
    const md = await text(join(root, 'SKILL.md'))
    for (const r of [
      ...(txt === undefined ? [] : readRequirementsTxt(txt)),
      ...(md === undefined ? [] : readSkillMdInstalls(md)),
    ]) {
      if (!found.has(r.name)) found.set(r.name, r)
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
