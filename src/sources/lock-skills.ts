import { SkillHostError } from '../common/errors.js'
import type { FileSystemSkillSource } from './file-system-skill-source.js'
import { SKILL_LOCK_VERSION, type SkillLock, type SkillLockEntry } from './skill-lock.js'
import type { DiscoveredSkill, DiscoveryProgress, SkillProblem } from './types.js'

/** Options for `lockSkills`. */
export interface LockSkillsOptions {
  /**
   * The `source` recorded for a skill, from its folder's host path; default
   * the host path itself. The CLI writes it relative to the lockfile.
   */
  readonly sourceLabel?: (folder: string, skill: DiscoveredSkill) => string
  /** Receives what discovery reports, and every skill that could not be hashed. */
  readonly report?: (problem: SkillProblem) => void
  /** The discovery's running totals (see `DiscoverOptions.onProgress`). */
  readonly onProgress?: (progress: DiscoveryProgress) => void
  readonly signal?: AbortSignal
}

/** A discovered skill's folder: its location without the trailing `/SKILL.md`. */
const folderOf = (skill: DiscoveredSkill): string =>
  (skill.location ?? skill.id).replace(/[\\/]SKILL\.md$/, '')

/**
 * Pins what `source` serves now: discovers it and records, for each skill it
 * serves, the content digest (`FileSystemSkillSource.digest`), every file's
 * `sha256:` digest and size from the same reads (`FileSystemSkillSource.manifest`)
 * and where it came from. Skills the source does not serve (invalid, shadowed, too large)
 * are reported, not pinned; so is a skill whose files cannot be read in full
 * or change while they are hashed. Give a source without a lock: under one,
 * only skills already pinned as they are would be pinned again.
 */
export async function lockSkills(
  source: FileSystemSkillSource,
  options: LockSkillsOptions = {},
): Promise<SkillLock> {
  const report = options.report ?? (() => undefined)
  const label = options.sourceLabel ?? ((folder: string) => folder)
  const skills = new Map<string, SkillLockEntry>()
  const found: DiscoveredSkill[] = []
  for await (const skill of source.discover({
    report,
    ...(options.signal && { signal: options.signal }),
    ...(options.onProgress && { onProgress: options.onProgress }),
  }))
    found.push(skill)
  for (const skill of found) {
    const folder = folderOf(skill)
    try {
      // One read of every file gives both the content digest and each file's digest.
      const manifest = await source.manifest(
        skill,
        options.signal ? { signal: options.signal } : {},
      )
      skills.set(skill.id, {
        digest: manifest.contentDigest!,
        source: label(folder, skill),
        files: manifest.files,
      })
    } catch (err) {
      if (!SkillHostError.isInstance(err) || err.code === 'E_ABORTED') throw err
      report({
        location: skill.id,
        hostPath: folder,
        id: skill.id,
        code: err.code,
        message: `Not pinned: ${err.message}`,
        severity: 'error',
      })
    }
  }
  return { lockfileVersion: SKILL_LOCK_VERSION, skills }
}
