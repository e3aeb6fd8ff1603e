import { mkdtemp, rmdir } from 'node:fs/promises'
import { homedir, hostname, tmpdir, userInfo } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'

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

/**
 * A fresh folder `prefix` + six random letters under `parent` whose path is
 * neutral (`isNeutralPath`): letters that happen to spell the host's name (a
 * host called `vm` is spelt by about 1 suffix in 200) are drawn again, so a
 * reader of the path cannot mistake chance for the host. Made 0700, as
 * `mkdtemp` makes it; a path that names them before its letters (the parent's
 * or the prefix's words) is returned after the first draw.
 */
export async function mkdtempNeutral(
  parent: string,
  prefix: string,
  words = personalWords(),
): Promise<string> {
  const first = await mkdtemp(join(parent, prefix))
  if (!isNeutralPath(join(parent, prefix), words)) return first
  for (let dir = first, draws = 1; ; draws++) {
    if (isNeutralPath(dir, words) || draws === 64) return dir
    await rmdir(dir)
    dir = await mkdtemp(join(parent, prefix))
  }
}
