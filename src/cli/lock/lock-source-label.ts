import { homedir } from 'node:os'
import { isAbsolute, relative, sep } from 'node:path'

/** `path` with `/` separators, whatever the platform. */
const posix = (path: string): string => (sep === '/' ? path : path.split(sep).join('/'))

/** True when `rel` (from `relative`) stays inside its base. */
const inside = (rel: string): boolean =>
  rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)

/**
 * How a lockfile names where a skill was pinned from, for a person reading
 * it: relative to the lockfile's folder when the skill lies inside it (so a
 * project's lock holds no host path), `~/…` under the home folder, else the
 * absolute path. Only informative: the digest is what is checked.
 */
export function lockSourceLabel(folder: string, lockDir: string, home = homedir()): string {
  const fromLock = relative(lockDir, folder)
  if (fromLock === '') return '.'
  if (inside(fromLock)) return posix(fromLock)
  const fromHome = relative(home, folder)
  if (inside(fromHome)) return `~/${posix(fromHome)}`
  return posix(folder)
}
