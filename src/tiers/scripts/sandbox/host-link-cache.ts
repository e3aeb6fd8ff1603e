import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { isPathInside } from '../policy/policy.js'

/**
 * Remembers, across processes, the symlinks out of the host's system
 * folders their walk found (`hostSystemLinks`), with the identity of every
 * folder it read: a `skillhost run` then checks about 16,000 folders instead
 * of reading 140,000 entries, and follows a few hundred links instead of
 * 5,500 (issue 39 item 3). What the cache holds is a hint,
 * never a grant: every link it names is followed again by
 * `hostLinkClosure`'s own checks (owner, mode, `/etc` or `/opt`, never a
 * deny entry), and a link outside the walked roots is dropped; so a
 * poisoned or stale file could only leave a link out (a target not shown,
 * failing closed), never show one the walk would not.
 *
 * Kept only by a process running as root, only in a folder owned by root
 * and closed to group and others, and only from files in it owned by root,
 * private and regular: each checked on a held descriptor (`fstat`), the
 * file named through that descriptor (`/proc/self/fd/N/name`, never a path
 * resolved twice). Anything else and the walk runs as before.
 */

/** The folder walks are remembered in; undefined: walked once per process only. */
let linkDir: string | undefined

/** The largest remembered walk read back (a Debian desktop's is about 1.5 MB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024

/**
 * `-2`: since this name the file holds only the links that lead out of the
 * walked folders; a file of every link (the old name) would still be right,
 * only slower, so it is left to age rather than read.
 */
const CACHE_NAME = 'system-links-2.json'

/**
 * Turns the cross-process memory of the system folders' walk on in `dir`
 * (the CLI's cache folder), or off with `undefined`. Off unless called, and
 * without effect unless the process runs as root (see the file's comment).
 */
export function rememberHostLinks(dir: string | undefined): void {
  linkDir = dir
}

/** One walk's result: the folders it read, each with its identity, and the links it found. */
export interface WalkRecord {
  /** Each root's identity (`folderIdentity`), read before it was walked. */
  readonly roots: readonly (readonly [string, string])[]
  /** Each folder read, with its identity taken before it was read. */
  readonly dirs: (readonly [string, string])[]
  readonly links: string[]
}

/**
 * Who a folder is now: type, device, inode, mode, change and modification
 * times. Adding, removing or renaming an entry in a folder changes its
 * times, a mount over it changes device and inode, so an unchanged identity
 * means an unchanged list of entries (`RACY_MS` covers the clock's
 * granularity). `-` when it cannot be read.
 */
export function folderIdentity(path: string): string {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false })
    if (st === undefined) return '-'
    const kind = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'o'
    return `${kind}:${st.dev}:${st.ino}:${st.mode}:${st.mtimeMs}:${st.ctimeMs}`
  } catch {
    return '-'
  }
}

/**
 * A folder changed this recently before the walk read it is not
 * remembered: file times advance by the kernel's clock tick, so a second
 * change within one tick of the first could leave the times as they were
 * (git's "racily clean" entries, solved the same way).
 */
export const RACY_MS = 2000

/** Whether `identity` (from `folderIdentity`) was changed within `RACY_MS` of `sinceMs`. */
export function changedRecently(identity: string, sinceMs: number): boolean {
  const ctimeMs = Number(identity.slice(identity.lastIndexOf(':') + 1))
  return !(ctimeMs < sinceMs - RACY_MS)
}

/** Whether remembering is on for this process: asked, and running as root. */
function cacheDir(): string | undefined {
  if (linkDir === undefined || process.geteuid?.() !== 0) return undefined
  return linkDir
}

/** Root's own, closed to everyone else: the only owner whose writes the cache takes. */
function privateToRoot(fd: number, kind: 'dir' | 'file'): boolean {
  const st = fstatSync(fd)
  const typeOk = kind === 'dir' ? st.isDirectory() : st.isFile()
  return typeOk && st.uid === 0 && (st.mode & 0o077) === 0
}

/** The cache folder opened and checked, or undefined (then nothing is read or written). */
function openCacheDir(dir: string, create: boolean): number | undefined {
  try {
    if (create) mkdirSync(dir, { recursive: true, mode: 0o700 })
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    if (privateToRoot(fd, 'dir')) return fd
    closeSync(fd)
  } catch {
    // No folder, or not one: not remembered.
  }
  return undefined
}

function readAll(fd: number, size: number): string {
  const buf = Buffer.alloc(size)
  let got = 0
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got)
    if (n === 0) break
    got += n
  }
  return buf.subarray(0, got).toString('utf8')
}

/** The remembered file's record, when its folder and the file itself are root's and private. */
function readRecord(dir: string): unknown {
  const dirFd = openCacheDir(dir, false)
  if (dirFd === undefined) return undefined
  let fd: number | undefined
  try {
    fd = openSync(
      `/proc/self/fd/${dirFd}/${CACHE_NAME}`,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    )
    const size = fstatSync(fd).size
    if (!privateToRoot(fd, 'file') || size > MAX_CACHE_BYTES) return undefined
    return JSON.parse(readAll(fd, size))
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
    closeSync(dirFd)
  }
}

function isPairs(v: unknown): v is [string, string][] {
  return (
    Array.isArray(v) &&
    v.every(
      (p) =>
        Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string',
    )
  )
}

/**
 * The links an earlier process's walk of `roots` found, when remembering is
 * on and every root and every folder that walk read still has the identity
 * it had then; undefined otherwise (walk again). Only links inside `roots`
 * are given back.
 */
export function rememberedLinks(roots: readonly string[]): string[] | undefined {
  const dir = cacheDir()
  if (dir === undefined) return undefined
  const record = readRecord(dir) as Partial<Record<keyof WalkRecord, unknown>> | undefined
  if (record === undefined || record === null || typeof record !== 'object') return undefined
  const { roots: rootIds, dirs, links } = record
  if (!isPairs(rootIds) || !isPairs(dirs) || !Array.isArray(links)) return undefined
  if (rootIds.length !== roots.length || rootIds.some(([p], i) => p !== roots[i])) return undefined
  for (const [path, id] of rootIds) if (folderIdentity(path) !== id) return undefined
  for (const [path, id] of dirs) if (folderIdentity(path) !== id) return undefined
  return links.filter(
    (l): l is string => typeof l === 'string' && roots.some((r) => l !== r && isPathInside(l, r)),
  )
}

/**
 * Keeps `record` for the next process (when remembering is on and no
 * folder it read changed within `RACY_MS` of `startedMs`, the wall-clock
 * time the walk started), written whole to a private file and renamed into place through the folder's
 * descriptor. A failure only means the next process walks.
 */
export function rememberWalk(record: WalkRecord, startedMs: number): void {
  const dir = cacheDir()
  if (dir === undefined) return
  if ([...record.roots, ...record.dirs].some(([, id]) => changedRecently(id, startedMs))) return
  const dirFd = openCacheDir(dir, true)
  if (dirFd === undefined) return
  const tmp = `/proc/self/fd/${dirFd}/${CACHE_NAME}.${process.pid}.tmp`
  let fd: number | undefined
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
    fd = openSync(tmp, flags, 0o600)
    const data = Buffer.from(JSON.stringify(record))
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off)
    closeSync(fd)
    fd = undefined
    renameSync(tmp, `/proc/self/fd/${dirFd}/${CACHE_NAME}`)
  } catch {
    if (fd !== undefined) closeSync(fd)
    try {
      unlinkSync(tmp)
    } catch {
      // Never made, or already renamed.
    }
  } finally {
    closeSync(dirFd)
  }
}

/** Whether a walk should record its folders' identities (remembering is on here). */
export function recordsWalks(): boolean {
  return cacheDir() !== undefined
}
