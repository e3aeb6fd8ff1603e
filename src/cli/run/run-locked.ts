import { escapeLine, SkillHostError } from '../../common/index.js'
import { FileSystemSkillSource, type SkillLock } from '../../index.js'
import { diffSkillLocks, lockSkills } from '../../sources/index.js'
import { driftSummary } from '../lock/lock-check.js'

/** Only `id`'s entry of `lock`, so a diff speaks of that one skill. */
function only(lock: SkillLock, id: string): SkillLock {
  const entry = lock.skills.get(id)
  return {
    lockfileVersion: lock.lockfileVersion,
    skills: new Map(entry === undefined ? [] : [[id, entry]]),
  }
}

/**
 * `run --locked FILE`'s refusal of skill `id` at `root` (`E_SKILL_NOT_PINNED`
 * from the locked source), said for the person: what drifted, by the lock
 * check `skillhost lock --verify` makes (a fresh `lockSkills` of the folder
 * against the pin, `diffSkillLocks`), and what to do. An environment's
 * refusal (`data.reason` `environment-…`) already says its own.
 */
export async function lockedRefusal(
  err: SkillHostError,
  root: string,
  id: string,
  lock: SkillLock,
  file: string,
): Promise<SkillHostError> {
  if (String(err.data.reason).startsWith('environment-')) return err
  const source = new FileSystemSkillSource({ roots: [root], id: 'cli' })
  let drift: string
  try {
    const now = await lockSkills(source)
    const found = diffSkillLocks(only(lock, id), only(now, id)).map(driftSummary)
    drift = found.length > 0 ? found.join('; ') : 'changed while it was checked'
  } catch {
    drift = 'its files could not be compared'
  } finally {
    source.close()
  }
  const pinned = lock.skills.has(id)
  const skill = escapeLine(id)
  return new SkillHostError(err.code, err.message, {
    data: err.data,
    cause: err,
    person: pinned
      ? `skill '${skill}' is not as ${file} pins it (${drift}); review the change, then pin it again with skillhost lock`
      : `skill '${skill}' is not pinned in ${file}; pin it with skillhost lock`,
  })
}
