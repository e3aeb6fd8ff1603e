/** Bounds a `FileSystemSkillSource` keeps while walking and reading. */
export interface SkillSourceLimits {
  /**
   * Deepest folder level searched below a root for `SKILL.md` (the root is
   * level 0). Default 6. Each folder left out below it is reported
   * (`E_SKILL_NOT_SEARCHED`), never skipped silently.
   */
  readonly maxDepth: number
  /** Directory entries examined per discovery across all roots before the walk stops. Default 500,000. */
  readonly maxEntries: number
  /** Files one skill may ship; a larger skill is skipped. Default 2,000. */
  readonly maxFilesPerSkill: number
  /** Largest SKILL.md read, in bytes. Default 1 MiB. */
  readonly maxSkillMdBytes: number
  /** Largest file of a skill read, in bytes. Default 16 MiB. */
  readonly maxFileBytes: number
  /** Largest YAML frontmatter parsed, in bytes. Default 64 KiB. */
  readonly maxFrontmatterBytes: number
  /** Skill folders processed at once during discovery. Default 64. */
  readonly concurrency: number
}

/** The limits used when none are given. */
export const DEFAULT_SOURCE_LIMITS: SkillSourceLimits = Object.freeze({
  maxDepth: 6,
  maxEntries: 500_000,
  maxFilesPerSkill: 2_000,
  maxSkillMdBytes: 1024 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
  maxFrontmatterBytes: 64 * 1024,
  concurrency: 64,
})

/** Merges partial limits over the defaults, rejecting non-positive numbers. */
export function resolveSourceLimits(partial: Partial<SkillSourceLimits> = {}): SkillSourceLimits {
  const out = { ...DEFAULT_SOURCE_LIMITS }
  for (const key of Object.keys(out) as (keyof SkillSourceLimits)[]) {
    const value = partial[key]
    if (value === undefined) continue
    if (!Number.isInteger(value) || value < (key === 'maxDepth' ? 0 : 1)) {
      throw new TypeError(`limits.${key} must be a positive integer`)
    }
    out[key] = value
  }
  return Object.freeze(out)
}
