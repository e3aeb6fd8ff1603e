import { resolve } from 'node:path'
import { SkillHostError } from '../../common/index.js'
import { readSkillLock, type SkillLock } from '../../sources/index.js'
import type { HelpItem } from './help-text.js'

/** The help item of `--locked FILE`, for every command that takes it. */
export const LOCKED_HELP: HelpItem = {
  term: '--locked FILE',
  text: 'serve only the skills FILE pins (skillhost lock writes it); a skill changed since is shown as changed-since-pinned and refuses to load',
}

/**
 * The lockfile `--locked FILE` names, read and validated (see
 * `readSkillLock`); undefined without the flag. A bad lockfile is its own
 * `E_INVALID_SKILLS_CONFIG` (exit 1, not a usage error) whose person text
 * names the flag and the file as the user typed it.
 */
export async function lockedFlag(value: string | undefined): Promise<SkillLock | undefined> {
  if (value === undefined) return undefined
  try {
    return await readSkillLock(resolve(value))
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    throw new SkillHostError(err.code, err.message, {
      data: err.data,
      cause: err,
      person: `--locked ${value}: ${err.message}`,
    })
  }
}
