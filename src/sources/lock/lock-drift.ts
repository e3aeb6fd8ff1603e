import type { SkillManifestFile } from '../reading/skill-manifest.js'
import type { SkillLock } from './skill-lock.js'

/** How one skill differs between a lockfile and what the roots serve now. */
export type SkillLockDrift =
  | { readonly id: string; readonly kind: 'added' | 'removed' }
  | {
      readonly id: string
      readonly kind: 'changed'
      /**
       * Paths added, removed or changed, when both sides list their files
       * (lockfile version 2); empty when only the content digests differ.
       */
      readonly added: readonly string[]
      readonly removed: readonly string[]
      readonly changed: readonly string[]
    }

/** Paths added, removed or changed (digest or size) from `before` to `after`. */
export function diffSkillFiles(
  before: readonly SkillManifestFile[],
  after: readonly SkillManifestFile[],
): { added: string[]; removed: string[]; changed: string[] } {
  const was = new Map(before.map((f) => [f.path, f]))
  const now = new Map(after.map((f) => [f.path, f]))
  const added = after.filter((f) => !was.has(f.path)).map((f) => f.path)
  const removed = before.filter((f) => !now.has(f.path)).map((f) => f.path)
  const changed = after
    .filter((f) => {
      const old = was.get(f.path)
      return old !== undefined && (old.digest !== f.digest || old.size !== f.size)
    })
    .map((f) => f.path)
  return { added, removed, changed }
}

/**
 * Every difference between the lockfile `pinned` and a fresh lock `now` of
 * the same roots, ids in sorted order: a skill pinned but no longer served,
 * one served but not pinned, and one whose content changed (its content
 * digest, or any file's digest or size when both record files). Empty when
 * they pin the same content. A version-1 lockfile compares by content digest
 * alone: it records no files, and the same content has the same digest.
 */
export function diffSkillLocks(pinned: SkillLock, now: SkillLock): SkillLockDrift[] {
  const ids = [...new Set([...pinned.skills.keys(), ...now.skills.keys()])].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  )
  const drift: SkillLockDrift[] = []
  for (const id of ids) {
    const was = pinned.skills.get(id)
    const is = now.skills.get(id)
    if (!is) drift.push({ id, kind: 'removed' })
    else if (!was) drift.push({ id, kind: 'added' })
    else {
      const files =
        was.files && is.files
          ? diffSkillFiles(was.files, is.files)
          : { added: [], removed: [], changed: [] }
      const count = files.added.length + files.removed.length + files.changed.length
      if (was.digest !== is.digest || count > 0) drift.push({ id, kind: 'changed', ...files })
    }
  }
  return drift
}
