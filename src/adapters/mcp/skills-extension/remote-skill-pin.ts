import type { SkillLock, SkillProblem } from '../../../sources/index.js'
import { notPinnedError } from '../../../sources/index.js'
import { diffSkillFiles } from '../../../sources/internal.js'
import type { RemoteSkill } from './remote-skill-entries.js'

/**
 * The catalog problem when `lock` does not serve a remote skill as its
 * server lists it, or undefined when it does: the lock must hold the id with
 * exactly the listed files (path, size, `sha256:` digest), compared without
 * fetching a byte. A version-1 entry records no files and cannot be compared,
 * so it does not serve the skill either.
 */
export function remotePinProblem(
  lock: SkillLock,
  skill: RemoteSkill,
  location: string,
): SkillProblem | undefined {
  const pinned = lock.skills.get(skill.id)
  const where = { location, id: skill.id, severity: 'error' as const, code: 'E_SKILL_NOT_PINNED' }
  // Not in the lock: the one text every source gives for it.
  if (!pinned) return { ...where, message: notPinnedError(skill.id, undefined).message }
  const { added, removed, changed } = pinned.files
    ? diffSkillFiles(pinned.files, [...skill.files.values()])
    : { added: [], removed: [], changed: [] }
  const differ = added.length + removed.length + changed.length
  if (pinned.files && differ === 0) return undefined
  const what = pinned.files
    ? `${differ} of its files differ from the pinned ones`
    : 'its lock entry records no files to compare (a version-1 lockfile)'
  return {
    ...where,
    message: `Skill "${skill.id}" as the server lists it is not what the lockfile pins: ${what}. It is not served until the deployer pins it again with skillhost lock.`,
  }
}
