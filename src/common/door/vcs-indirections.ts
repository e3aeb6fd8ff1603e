import { constants } from 'node:fs'
import { type FileHandle, lstat, open } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { at } from './beneath.js'

/** The most bytes of a pointer file (`.git`, `commondir`, `sharedpath`) read; git's own are one line. */
const POINTER_MAX = 4096

/** The first line of the regular file `path` (never through a final symlink), or undefined. */
async function pointer(path: string): Promise<string | undefined> {
  const handle = await open(
    path,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch(() => undefined)
  if (handle === undefined) return undefined
  try {
    const st = await handle.stat()
    if (!st.isFile() || st.size > POINTER_MAX) return undefined
    const line = (await handle.readFile('utf8')).split('\n')[0]?.trim()
    return line === '' ? undefined : line
  } finally {
    await handle.close()
  }
}

/** `target` as git resolves it: absolute as it is, relative from `base`. */
function from(base: string, target: string): string {
  return isAbsolute(target) ? resolve(target) : resolve(base, target)
}

/**
 * The folders git and Mercurial read repository state from through a
 * pointer reachable from the folder `dir` (absolute host path): a `.git`
 * file's `gitdir:` (worktrees, submodules, `--separate-git-dir`), the
 * `commondir` of that folder or of a `.git` folder, and `.hg/sharedpath`.
 * Each is where a planted `config` or hook runs on the host, although no
 * component of its path is `.git`, so the door never writes inside one.
 */
export async function vcsIndirections(dir: string): Promise<string[]> {
  const out: string[] = []
  const dotGit = join(dir, '.git')
  const file = await pointer(dotGit)
  const gitdir = file?.startsWith('gitdir:') ? from(dir, file.slice(7).trim()) : undefined
  if (gitdir !== undefined) out.push(gitdir)
  for (const admin of gitdir === undefined ? [dotGit] : [gitdir]) {
    const common = await pointer(join(admin, 'commondir'))
    if (common !== undefined) out.push(from(admin, common))
  }
  const shared = await pointer(join(dir, '.hg', 'sharedpath'))
  if (shared !== undefined) out.push(from(join(dir, '.hg'), shared))
  return out
}

/** `vcsIndirections` of `dir` and of every folder above it, up to `/`. */
export async function vcsIndirectionsAbove(dir: string): Promise<string[]> {
  const out: string[] = []
  for (let d = resolve(dir); ; d = dirname(d)) {
    out.push(...(await vcsIndirections(d)))
    if (dirname(d) === d) return out
  }
}

/**
 * True when the folder `dir` holds is shaped like a git directory, whatever
 * its name (git's own test: `HEAD` beside `objects/` and `refs/`; a
 * worktree's admin folder, with `commondir` or `gitdir`): git would read a
 * `config` or a hook there.
 */
export async function isGitDirShape(dir: FileHandle): Promise<boolean> {
  const kind = async (name: string) => {
    const st = await lstat(at(dir, name)).catch(() => undefined)
    return st?.isFile() ? 'file' : st?.isDirectory() ? 'dir' : undefined
  }
  const [head, objects, refs, common, gitdir] = await Promise.all(
    ['HEAD', 'objects', 'refs', 'commondir', 'gitdir'].map(kind),
  )
  if (common === 'file' || (gitdir === 'file' && head === 'file')) return true
  return head === 'file' && objects === 'dir' && refs === 'dir'
}
