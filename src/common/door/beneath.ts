import { randomBytes } from 'node:crypto'
import { type BigIntStats, constants, type Dirent } from 'node:fs'
import {
  chmod,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rmdir,
  unlink,
} from 'node:fs/promises'
import { isProtectedName } from './protected-names.js'

/**
 * Race-free operations inside a tree that contained code may be rewriting
 * while the host works on it (the session workspace).
 *
 * Node has no `openat`, so every name is resolved through a held directory
 * descriptor: `/proc/self/fd/<fd>/<name>`. The kernel follows the magic link
 * to the very directory the descriptor holds (wherever it has been moved to),
 * then looks up one component there; `O_NOFOLLOW` (and `lstat`, `unlink`,
 * `rmdir`, `mkdir`, `rename`, which never follow a last component) keep that
 * component from being a symlink. So a script that swaps any parent for a
 * symlink, at any moment, makes the host's operation fail (`ELOOP`,
 * `ENOTDIR`) instead of reaching a host file: no path below the root is ever
 * resolved by name. `docs/security.md` says why this design was chosen.
 *
 * Names are single components: the callers pass paths already split by the
 * skill-path rule (no `..`, no `/`, no NUL).
 */

/** A name inside the directory held by `dir`, resolved by the kernel from the descriptor. */
export function at(dir: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dir.fd}` : `/proc/self/fd/${dir.fd}/${name}`
}

/** Linux `O_PATH`: a descriptor that names an inode without opening it for I/O (not in `fs.constants`). */
export const O_PATH = 0o10000000

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** Why a component could not be opened as a directory: a symlink, a non-folder or nothing. */
export type OpenDirFailure = 'symlink' | 'not-a-folder' | 'missing'

/** A failure to follow a path through the tree, naming the component at fault. */
export class BeneathError extends Error {
  constructor(
    readonly reason: OpenDirFailure,
    readonly depth: number,
  ) {
    super(`component ${depth}: ${reason}`)
  }
}

function dirFailure(err: NodeJS.ErrnoException): OpenDirFailure | undefined {
  if (err.code === 'ELOOP') return 'symlink'
  if (err.code === 'ENOTDIR') return 'not-a-folder'
  if (err.code === 'ENOENT') return 'missing'
  return undefined
}

/** Opens the tree's root (a host path the deployer chose, never a symlink). */
export function openRoot(path: string): Promise<FileHandle> {
  return open(path, DIR_FLAGS)
}

/** Opens the directory `name` inside `dir`, never through a symlink. */
export function openChildDir(dir: FileHandle, name: string): Promise<FileHandle> {
  return open(at(dir, name), DIR_FLAGS)
}

/**
 * Opens the directory reached by `parts` below `root`, one component at a
 * time from held descriptors. With `create`, missing folders are made (mode
 * from `create.mode`, then `create.made` runs on each new one). Throws
 * `BeneathError` when a component is a symlink, not a folder, or missing
 * (without `create`); other errors as they come. The result is always a
 * new handle (for no parts, a second one on the root) that the caller closes.
 */
export async function openDirBeneath(
  root: FileHandle,
  parts: readonly string[],
  create?: { readonly mode: number; readonly made?: (dir: FileHandle) => Promise<void> },
): Promise<FileHandle> {
  // The magic link itself is followed (no O_NOFOLLOW): it names the held folder.
  if (parts.length === 0) return open(at(root), constants.O_RDONLY | constants.O_DIRECTORY)
  let current = root
  try {
    for (const [i, part] of parts.entries()) {
      let next: FileHandle | undefined
      try {
        next = await openChildDir(current, part)
      } catch (err) {
        const why = dirFailure(err as NodeJS.ErrnoException)
        if (why !== 'missing' || create === undefined) {
          if (why === undefined) throw err
          throw new BeneathError(why, i)
        }
        await mkdir(at(current, part), create.mode).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e
        })
        // Opened again by descriptor: a script may have swapped the new folder already.
        next = await openChildDir(current, part).catch((e: NodeJS.ErrnoException) => {
          const again = dirFailure(e)
          throw again === undefined ? e : new BeneathError(again, i)
        })
        await create.made?.(next).catch(async (e: unknown) => {
          await next?.close()
          throw e
        })
      }
      if (current !== root) await current.close()
      current = next
    }
    return current
  } catch (err) {
    if (current !== root) await current.close().catch(() => undefined)
    throw err
  }
}

/** What an entry of the tree is, as a walk or a listing reports it. */
export type EntryKind = 'file' | 'dir' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other'

/** The kind of a directory entry (from `readdir`'s type, never by following it). */
export function kindOf(entry: {
  isFile(): boolean
  isDirectory(): boolean
  isSymbolicLink(): boolean
  isFIFO(): boolean
  isSocket(): boolean
  isBlockDevice(): boolean
  isCharacterDevice(): boolean
}): EntryKind {
  if (entry.isFile()) return 'file'
  if (entry.isDirectory()) return 'dir'
  if (entry.isSymbolicLink()) return 'symlink'
  if (entry.isFIFO()) return 'fifo'
  if (entry.isSocket()) return 'socket'
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'device'
  return 'other'
}

/**
 * Opens the entry `name` of `dir` for reading or writing without following a
 * symlink and without blocking (a FIFO or device named like a file opens at
 * once, and the caller refuses it after `fstat`). `ELOOP` means a symlink.
 */
export function openEntry(dir: FileHandle, name: string, flags: number, mode = 0o600) {
  return open(at(dir, name), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode)
}

/** One entry of a walked tree; `changeTag` differs whenever a file is rewritten, resized or replaced. */
export interface TreeEntry {
  readonly kind: EntryKind
  readonly size: number
  readonly changeTag: string
}

/** Limits of one walk; past either, the walk ends with `complete: false`. */
export interface WalkLimits {
  /** Most entries recorded. */
  readonly maxEntries: number
  /** Deepest folder entered (the root's children are depth 1). */
  readonly maxDepth: number
}

/** Files of one folder whose lstat calls are in flight together. */
const STAT_BATCH = 64

/**
 * Every entry below `root`, by `/`-separated relative path, including
 * `.git` and `node_modules` (every byte counts against a cap), never
 * following a symlink: each folder is entered through its parent's
 * descriptor with `O_NOFOLLOW`, so a folder swapped for a symlink mid-walk is
 * recorded as the symlink it became. Stops at `limits` with
 * `complete: false`; an incomplete walk must be treated as over any cap.
 */
export async function walkBeneath(
  root: FileHandle,
  limits: WalkLimits,
): Promise<{ entries: Map<string, TreeEntry>; complete: boolean }> {
  const state: WalkState = { entries: new Map(), complete: true, limits }
  await visitBeneath(state, root, '', 0)
  return { entries: state.entries, complete: state.complete }
}

/** One walk's findings; `complete` turns false at the first thing not measured. */
interface WalkState {
  readonly entries: Map<string, TreeEntry>
  complete: boolean
  readonly limits: WalkLimits
}

/** Lists `dir` (at `rel`, `depth` below the root) into the walk, entering each child folder by descriptor. */
async function visitBeneath(
  state: WalkState,
  dir: FileHandle,
  rel: string,
  depth: number,
): Promise<void> {
  let children: Dirent[]
  try {
    children = await readdir(at(dir), { withFileTypes: true })
  } catch (err) {
    // Removed while we walked: nothing below it. Unreadable: not measured, so not complete.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') state.complete = false
    return
  }
  for (let i = 0; i < children.length; i += STAT_BATCH) {
    const batch = children.slice(i, i + STAT_BATCH)
    const stats = await statBatch(state, dir, batch)
    for (const [k, child] of batch.entries()) {
      if (state.entries.size >= state.limits.maxEntries) {
        state.complete = false
        return
      }
      const path = rel === '' ? child.name : `${rel}/${child.name}`
      const kind = kindOf(child)
      if (kind === 'file') {
        const entry = fileEntry(stats[k])
        if (entry !== undefined) state.entries.set(path, entry)
      } else if (kind === 'dir') {
        if (!(await visitChild(state, dir, child.name, path, depth))) return
      } else {
        state.entries.set(path, { kind, size: 0, changeTag: '' })
      }
    }
  }
}

/** The lstats of a batch's files, run together: awaited one by one, each costs a thread-pool round trip. */
function statBatch(
  state: WalkState,
  dir: FileHandle,
  batch: readonly Dirent[],
): Promise<(BigIntStats | undefined)[]> {
  return Promise.all(
    batch.map((child) =>
      child.isFile()
        ? lstat(at(dir, child.name), { bigint: true }).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') state.complete = false
            return undefined
          })
        : undefined,
    ),
  )
}

/** A listed file's entry from its lstat; undefined when it is gone since the listing. */
function fileEntry(st: BigIntStats | undefined): TreeEntry | undefined {
  if (st === undefined) return undefined
  if (!st.isFile())
    return { kind: st.isSymbolicLink() ? 'symlink' : 'other', size: 0, changeTag: '' }
  return {
    kind: 'file',
    size: Number(st.size),
    changeTag: `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`,
  }
}

/**
 * Enters the child folder `name` of `dir` by descriptor and walks it; false
 * when the walk must stop (too deep, or something below not measured).
 */
async function visitChild(
  state: WalkState,
  dir: FileHandle,
  name: string,
  path: string,
  depth: number,
): Promise<boolean> {
  if (depth + 1 > state.limits.maxDepth) {
    state.complete = false
    return false
  }
  const sub = await openChildDir(dir, name).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') return 'symlink' as const
    // Gone since the listing: nothing to count. Anything else (unreadable): not measured.
    if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') state.complete = false
    return undefined
  })
  if (sub === undefined) return true
  if (sub === 'symlink') {
    state.entries.set(path, { kind: 'symlink', size: 0, changeTag: '' })
    return true
  }
  // A version-control folder carries its identity: a call that moves one has not made one.
  const id = isProtectedName(name) ? await sub.stat({ bigint: true }) : undefined
  state.entries.set(path, { kind: 'dir', size: 0, changeTag: id ? `${id.dev}:${id.ino}` : '' })
  try {
    await visitBeneath(state, sub, path, depth + 1)
  } finally {
    await sub.close()
  }
  return state.complete
}

/** Folders entered by descriptor before a deeper chain is moved up to the top (bounds the fds held). */
const REMOVE_DEPTH = 32

/**
 * Removes the entry `name` of `parent` and, for a folder, everything below
 * it, without ever following a symlink (a folder swapped for one has the
 * link removed, not its target) and whatever the depth: a chain deeper than
 * `REMOVE_DEPTH` is renamed up into `parent` (by descriptor) and removed from
 * there, so at most that many folders are held open. Folders are made
 * writable first (a script may have left them 0500). A name already gone is
 * not an error.
 */
export async function removeBeneath(parent: FileHandle, name: string): Promise<void> {
  const pending = [name]
  while (pending.length > 0) {
    const top = pending.pop() as string
    await removeOne(parent, parent, top, 0, pending)
  }
}

async function removeOne(
  top: FileHandle,
  dir: FileHandle,
  name: string,
  depth: number,
  pending: string[],
): Promise<void> {
  const st = await lstat(at(dir, name)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw err
  })
  if (st === undefined) return
  if (!st.isDirectory()) {
    await unlink(at(dir, name)).catch(ignoreGone)
    return
  }
  if (depth >= REMOVE_DEPTH) {
    const cut = `.cut-${randomBytes(8).toString('hex')}`
    await rename(at(dir, name), at(top, cut))
    pending.push(cut)
    return
  }
  const sub = await openChildDir(dir, name).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP' || err.code === 'ENOTDIR') return 'swapped' as const
    if (err.code === 'ENOENT') return undefined
    if (err.code === 'EACCES') return 'locked' as const
    throw err
  })
  if (sub === undefined) return
  if (sub === 'swapped') {
    await unlink(at(dir, name)).catch(ignoreGone)
    return
  }
  if (sub === 'locked') {
    // A folder its writer made unreadable (the host is not root): open it up
    // through an O_PATH descriptor, checked to be that folder, then retry.
    const path = await open(at(dir, name), O_PATH | constants.O_NOFOLLOW)
    try {
      if ((await path.stat()).isDirectory()) await chmod(at(path), 0o700)
    } finally {
      await path.close()
    }
    await emptyThenRemove(top, dir, name, await openChildDir(dir, name), depth, pending)
    return
  }
  await emptyThenRemove(top, dir, name, sub, depth, pending)
}

async function emptyThenRemove(
  top: FileHandle,
  dir: FileHandle,
  name: string,
  sub: FileHandle,
  depth: number,
  pending: string[],
): Promise<void> {
  try {
    await sub.chmod(0o700).catch(() => undefined)
    for (const child of await readdir(at(sub))) {
      await removeOne(top, sub, child, depth + 1, pending)
    }
  } finally {
    await sub.close()
  }
  await rmdir(at(dir, name)).catch(ignoreGone)
}

function ignoreGone(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err
}
