import { type FsSteps, readdirCheckedStep, realpathStep } from './fs-steps.js'
import { childPath, type DirEntry } from './skill-fs.js'

/**
 * Where a scan's checked listings expect the skill folder to be: its
 * canonical path. `dir` itself at first: a walk that follows no folder link
 * hands canonical paths, so the common case costs no `realpath`. Once a
 * listing disagrees, `realpath(dir)` (at most once per scan).
 */
export interface SkillPlace {
  base: string
  rebased: boolean
}

/**
 * Lists the subfolder `rel` (at `abs`) only if it is the folder its parent's
 * listing named: at `place`'s canonical path + `/` + `rel`, proved from an
 * open descriptor (`readdirChecked`), checked again once against
 * `realpath(dir)` when `dir` was not canonical. Undefined (with the `real`
 * it was checked against) when something else is there.
 */
export function* listSubfolder(
  dir: string,
  abs: string,
  rel: string,
  place: SkillPlace,
): FsSteps<[listed: DirEntry[] | undefined, real: string]> {
  const real = childPath(place.base, rel)
  const listed = yield* readdirCheckedStep(abs, real)
  if (listed !== undefined || place.rebased) return [listed, real]
  place.rebased = true
  const realDir = yield* realpathStep(dir)
  if (realDir === place.base) return [undefined, real]
  place.base = realDir
  const again = childPath(realDir, rel)
  return [yield* readdirCheckedStep(abs, again), again]
}

/** The warning for a subfolder that is not, when used, the folder its parent's listing named. */
export const changedWarning = (rel: string): string =>
  `${rel}/ changed while it was scanned; not searched`
