import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { posix } from 'node:path'
import {
  at,
  O_PATH,
  openDirBeneath,
  openEntry,
  type WalkLimits,
  walkBeneath,
} from '../../../common/door/beneath.js'
import { isProtectedName } from '../../../common/door/protected-names.js'
import { failed } from './workspace-errors.js'

/** A version-control entry held open for a read-only bind, and where the sandbox shows it. */
export interface ProtectedEntry {
  readonly handle: FileHandle
  readonly sandbox: string
}

/** Most version-control entries bound in one call; past it the call is refused (fail closed). */
export const MAX_PROTECTED_ENTRIES = 256

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

/** The first line of the regular file `name` of `dir` (at most 4 KiB), or undefined. */
async function pointerAt(dir: FileHandle, name: string): Promise<string | undefined> {
  const file = await openEntry(dir, name, constants.O_RDONLY).catch(() => undefined)
  if (file === undefined) return undefined
  try {
    const st = await file.stat()
    if (!st.isFile() || st.size > 4096) return undefined
    return (await file.readFile('utf8')).split('\n')[0]?.trim()
  } finally {
    await file.close()
  }
}

/**
 * `target` resolved from the workspace folder `from` (an absolute one from
 * `rootPath`, the workspace's host path), when it stays inside the workspace.
 */
function inTree(rootPath: string, from: string, target: string): string | undefined {
  const rel = target.startsWith('/')
    ? posix.relative(rootPath, posix.normalize(target))
    : posix.normalize(posix.join(from, target))
  const outside = rel === '' || rel === '.' || rel === '..' || rel.startsWith('../')
  return outside || rel.startsWith('/') ? undefined : rel
}

/**
 * The workspace paths git reads repository state through from the entry
 * `rel` (a `.git` file's `gitdir:`, then that folder's `commondir`; a `.git`
 * folder's `commondir`; `.hg/sharedpath`), those inside the workspace.
 */
async function pointedFrom(
  root: FileHandle,
  rootPath: string,
  rel: string,
  isFile: boolean,
): Promise<string[]> {
  const parts = rel.split('/')
  const name = parts.pop() as string
  const from = parts.join('/')
  const parent = await openDirBeneath(root, parts)
  try {
    const out: string[] = []
    let admin: string | undefined = rel
    if (isFile) {
      const line = await pointerAt(parent, name)
      admin = line?.startsWith('gitdir:') ? inTree(rootPath, from, line.slice(7).trim()) : undefined
      if (admin !== undefined) out.push(admin)
    }
    const file = name.toLowerCase() === '.hg' ? 'sharedpath' : 'commondir'
    if (admin !== undefined) {
      const dir = await openDirBeneath(root, admin.split('/')).catch(() => undefined)
      const line = dir && (await pointerAt(dir, file).finally(() => dir.close()))
      const common = line === undefined || line === '' ? undefined : inTree(rootPath, admin, line)
      if (common !== undefined) out.push(common)
    }
    return out
  } finally {
    await parent.close()
  }
}

/**
 * The paths to protect below `root`: every version-control entry at any
 * depth (`isProtectedName`, a folder or a file, never a symlink), and the
 * folders inside the tree their pointers name, without one inside another.
 */
async function protectedPaths(
  root: FileHandle,
  rootPath: string,
  limits: WalkLimits,
): Promise<string[]> {
  const { entries } = await walkBeneath(root, limits)
  const found: string[] = []
  for (const [path, entry] of entries) {
    if (entry.kind !== 'dir' && entry.kind !== 'file') continue
    if (!isProtectedName(path.slice(path.lastIndexOf('/') + 1))) continue
    found.push(path, ...(await pointedFrom(root, rootPath, path, entry.kind === 'file')))
  }
  const within = (p: string, q: string) => p === q || p.startsWith(`${q}/`)
  const sorted = [...new Set(found)].sort()
  return sorted.filter((p) => !sorted.some((q) => q !== p && within(p, q)))
}

/**
 * Opens, by descriptor, the version-control state below `root` (the
 * workspace at the host path `rootPath`) at any depth
 * (`.git`, `.hg`, `.svn`, and the folders a `.git` file's `gitdir:`, a
 * `commondir` or a `sharedpath` names inside the tree), for the sandbox to
 * bind read-only at `mount/<path>` over the writable workspace. Symlinks are
 * not followed (a symlinked `.git` resolves in the sandbox's view). More
 * than `MAX_PROTECTED_ENTRIES` is refused (`E_SKILL_WORKSPACE_FAILED`): a
 * bind each. On failure every handle opened so far is closed.
 */
export async function openProtectedEntries(
  root: FileHandle,
  rootPath: string,
  mount: string,
  limits: WalkLimits,
): Promise<ProtectedEntry[]> {
  const paths = await protectedPaths(root, rootPath, limits)
  if (paths.length > MAX_PROTECTED_ENTRIES)
    throw failed(
      `The workspace holds ${paths.length} version-control folders; at most ${MAX_PROTECTED_ENTRIES} can be kept read-only for a call.`,
    )
  const out: ProtectedEntry[] = []
  try {
    for (const path of paths) {
      const parts = path.split('/')
      const name = parts.pop() as string
      const parent = await openDirBeneath(root, parts).catch(() => undefined)
      if (parent === undefined) continue
      const entry = await openPathAt(parent, name).finally(() => parent.close())
      if (entry !== undefined) out.push({ handle: entry.handle, sandbox: `${mount}/${path}` })
    }
    return out
  } catch (err) {
    for (const e of out) await e.handle.close().catch(() => undefined)
    throw err
  }
}
