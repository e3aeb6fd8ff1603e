import { type FsSteps, readdirCheckedStep, realpathStep } from './fs-steps.js'
import { AT_SKILL, childPath, type DirEntry } from './skill-fs.js'

/**
 * Where a scan's checked listings expect the skill folder to be: its
 * canonical path. `dir` itself at first: a walk that follows no folder link
 * hands canonical paths, so the common case costs no `realpath`. Once a
 * listing disagrees, or a link must be judged against it, `realpath(dir)`
 * (`canonicalDir`, at most once per scan).
 */
export interface SkillPlace {
  base: string
  rebased: boolean
}

/** The skill folder's canonical path: `place.base` once resolved, else `realpath(dir)`, resolved at most once a scan. */
export function* canonicalDir(dir: string, place: SkillPlace): FsSteps<string> {
  if (!place.rebased) {
    place.base = yield* realpathStep(dir)
    place.rebased = true
  }
  return place.base
}

/**
 * Lists the subfolder `rel` (at `abs`) only if it is the folder its parent's
 * listing named: at `place`'s canonical path + `/` + `rel`, proved from an
 * open descriptor (`readdirChecked`), checked again once against
 * `realpath(dir)` when `dir` was not canonical. Undefined (with the `real`
 * it was checked against) when something else is there. A folder right
 * inside the skill folder is checked as `AT_SKILL`: not a link, and no
 * location to prove but the skill folder's.
 */
export function* listSubfolder(
  dir: string,
  abs: string,
  rel: string,
  place: SkillPlace,
): FsSteps<[listed: DirEntry[] | undefined, real: string | null]> {
  if (!rel.includes('/')) return [yield* readdirCheckedStep(abs, AT_SKILL), AT_SKILL]
  const real = childPath(place.base, rel)
  const listed = yield* readdirCheckedStep(abs, real)
  if (listed !== undefined || place.rebased) return [listed, real]
  const given = place.base
  const realDir = yield* canonicalDir(dir, place)
  if (realDir === given) return [undefined, real]
  const again = childPath(realDir, rel)
  return [yield* readdirCheckedStep(abs, again), again]
}

/** The warning for a subfolder that is not, when used, the folder its parent's listing named. */
export const changedWarning = (rel: string): string =>
  `${rel}/ changed while it was scanned; not searched`
