import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { posix } from 'node:path'
import { at, O_PATH, openDirBeneath, openEntry } from '../../../common/door/beneath.js'
import { PROTECTED_NAMES } from '../../../common/door/protected-names.js'

/** A version-control entry held open for a read-only bind, and where the sandbox shows it. */
export interface ProtectedEntry {
  readonly handle: FileHandle
  readonly sandbox: string
}

/** The entry `name` of `dir` as an O_PATH descriptor, unless it is missing or a symlink. */
async function openPathAt(
  dir: FileHandle,
  name: string,
): Promise<{ handle: FileHandle; isFile: boolean } | undefined> {
  const handle = await open(at(dir, name), O_PATH | constants.O_NOFOLLOW).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined
      throw err
    },
  )
  if (handle === undefined) return undefined
  const st = await handle.stat()
  if (!st.isDirectory() && !st.isFile()) {
    await handle.close()
    return undefined
  }
  return { handle, isFile: st.isFile() }
}

/** The relative folder a root `.git` file (a worktree or submodule) points at, when it is inside the workspace. */
async function gitdirTarget(root: FileHandle): Promise<string | undefined> {
  const file = await openEntry(root, '.git', constants.O_RDONLY).catch(() => undefined)
  if (file === undefined) return undefined
  try {
    const st = await file.stat()
    if (!st.isFile() || st.size > 4096) return undefined
    const text = (await file.readFile('utf8')).trim()
    const m = /^gitdir:\s*(.+)$/m.exec(text)
    if (m === null) return undefined
    const target = posix.normalize(m[1] as string)
    if (target.startsWith('/') || target === '.' || target.startsWith('..')) return undefined
    return target
  } finally {
    await file.close()
  }
}

/**
 * Opens, by descriptor, the version-control state at the root held by `root`
 * (`.git`, `.hg`, `.svn`, and the folder a `.git` file's `gitdir:` names when
 * it lies inside the tree), for the sandbox to bind read-only at
 * `mount/<path>` over the writable workspace. Symlinks are not followed (a
 * symlinked `.git` is left as it is: inside the sandbox it resolves in the
 * sandbox's view). On failure every handle opened so far is closed.
 */
export async function openProtectedEntries(
  root: FileHandle,
  mount: string,
): Promise<ProtectedEntry[]> {
  const out: ProtectedEntry[] = []
  try {
    for (const name of PROTECTED_NAMES) {
      const entry = await openPathAt(root, name)
      if (entry === undefined) continue
      out.push({ handle: entry.handle, sandbox: `${mount}/${name}` })
      if (name === '.git' && entry.isFile) {
        const target = await gitdirTarget(root)
        if (target !== undefined) {
          const dir = await openDirBeneath(root, target.split('/')).catch(() => undefined)
          if (dir !== undefined) out.push({ handle: dir, sandbox: `${mount}/${target}` })
        }
      }
    }
    return out
  } catch (err) {
    for (const e of out) await e.handle.close().catch(() => undefined)
    throw err
  }
}
