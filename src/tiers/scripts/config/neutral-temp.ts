import { homedir, hostname, tmpdir, userInfo } from 'node:os'
import { isAbsolute, relative, resolve } from 'node:path'

/** The words a path must not carry to be neutral: the host's name and the user's. */
function personalWords(): string[] {
  const words = [hostname()]
  try {
    words.push(userInfo().username)
  } catch {
    // No passwd entry for this uid: no name to hide.
  }
  return words.filter((w) => w.length > 0).map((w) => w.toLowerCase())
}

function under(child: string, parent: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** True when `path` names neither the host nor the user, and is not in the home folder. */
export function isNeutralPath(path: string, words = personalWords(), home = homedir()): boolean {
  if (home !== '/' && under(resolve(path), resolve(home))) return false
  const lower = path.toLowerCase()
  return !words.some((w) => w !== 'root' && lower.includes(w))
}

/**
 * Where the sandbox's own base folder is made: the host's temporary folder
 * (`TMPDIR`) when its path names neither the host nor the user, else
 * `/tmp`. Every private workspace and skill copy lives below it, and a
 * script reads their paths in `/proc/self/mountinfo` (a bind mount's source
 * is shown, whatever it was bound from), so the path carries nothing the
 * model does not already know.
 */
export function neutralTempRoot(): string {
  const preferred = tmpdir()
  return isNeutralPath(preferred) ? preferred : '/tmp'
}
