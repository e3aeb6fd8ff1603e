import {
  type DiscoveredSkill,
  FileSystemSkillSource,
  type SkillPin,
  type SkillProblem,
  type SkillSource,
} from '../../index.js'
import { formatSkillCopyRef } from '../../sources/index.js'
import { type CollectOptions, collectSkills, skillFolderOf } from './collect-skills.js'

/** A skill as the CLI shows it: which root served it and whether an earlier one wins. */
export interface CatalogRow {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly version: string
  readonly root: string
  readonly path: string
  readonly location: string
  readonly status: 'active' | 'shadowed'
  /**
   * What serve's `load_skill` takes for this row: the id for an active row,
   * the qualified ref of a shadowed copy serve still serves (none under
   * `--locked`, which pins one copy per id).
   */
  readonly ref?: string
  /** The folder of the winning skill, when shadowed. */
  readonly shadowedBy?: string
  readonly warnings: readonly string[]
  /** Under `--locked`: pinned, or changed since pinned. */
  readonly pin?: SkillPin
  readonly skill?: DiscoveredSkill
  /** The source that served `skill`, for reading its descriptor. */
  readonly source?: SkillSource
}

/** The CLI's view of several roots: every skill row, every problem, every failed root. */
export interface CliCatalog {
  readonly rows: readonly CatalogRow[]
  readonly problems: readonly (SkillProblem & { readonly root: string })[]
  readonly sourceErrors: readonly { readonly root: string; readonly message: string }[]
}

/** The ref serve's one source over the same roots gives a shadowed copy, if any. */
function copyRef(skill: DiscoveredSkill | undefined): { ref?: string } {
  const ref =
    skill?.copy === undefined
      ? undefined
      : formatSkillCopyRef(FileSystemSkillSource.defaultId, skill.copy)
  return ref === undefined ? {} : { ref }
}

/**
 * Scans roots in order, one source each, and applies the catalog rule: the
 * earliest root wins an id collision and later copies are listed as shadowed.
 * Copies shadowed inside one root (reported by the source) are listed too.
 * Each row's `ref` is the one `skillhost serve` over the same roots takes.
 */
export async function resolveCatalog(
  roots: readonly string[],
  options: CollectOptions = {},
): Promise<CliCatalog> {
  const rows: CatalogRow[] = []
  const problems: (SkillProblem & { root: string })[] = []
  const sourceErrors: { root: string; message: string }[] = []
  const winners = new Map<string, string>()
  for (const scan of await collectSkills(roots, options)) {
    for (const skill of scan.skills) {
      const path = skillFolderOf(skill)
      const winner = winners.get(skill.id)
      if (winner === undefined) winners.set(skill.id, path)
      rows.push({
        id: skill.id,
        name: skill.name,
        description: skill.description,
        version: skill.version,
        root: scan.root,
        path,
        location: skill.location ?? path,
        status: winner === undefined ? 'active' : 'shadowed',
        ...(winner === undefined ? { ref: skill.id } : copyRef(skill)),
        ...(winner !== undefined && { shadowedBy: winner }),
        warnings: skill.warnings ?? [],
        ...(skill.pin && { pin: skill.pin }),
        skill,
        source: scan.source,
      })
    }
    for (const p of scan.problems) {
      if (p.code === 'E_SKILL_SHADOWED') {
        const copy = p.shadowedCopy
        rows.push({
          id: p.id ?? p.location,
          name: copy?.name ?? '',
          description: copy?.description ?? '',
          version: copy?.version ?? '',
          root: scan.root,
          path: p.hostPath ?? p.location,
          location: p.hostPath ?? p.location,
          status: 'shadowed',
          ...copyRef(copy),
          shadowedBy: (p.id !== undefined && winners.get(p.id)) || p.message,
          warnings: [],
        })
      } else problems.push({ ...p, root: scan.root })
    }
    if (scan.error) sourceErrors.push({ root: scan.root, message: scan.error })
  }
  return { rows, problems, sourceErrors }
}
