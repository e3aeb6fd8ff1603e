import {
  close as closeCb,
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstat as fstatCb,
  fstatSync,
  lstatSync,
  open as openCb,
  openSync,
  read as readCb,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs'
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises'
import { sep } from 'node:path'
import { O_PATH } from '../../common/door/beneath.js'
import { SkillHostError } from '../../common/errors.js'

/** A file's bytes plus the stat taken from the same open descriptor. */
export interface CappedFile {
  readonly bytes: Uint8Array
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
}

/**
 * What a scan saw of a file; a read given it refuses any other file. The
 * ctime is in it because a rewrite can put the mtime back (`utimes`) but
 * not the ctime, which every write and every `utimes` set to the clock.
 */
export interface FileIdentity {
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
}

/**
 * What discovery uses of a directory entry: its name and its type, as the
 * listing gave it (a symlink is a symlink, never its target): all a `Dirent`
 * need offer, so a test's driver can hand back its own.
 */
export type DirEntry = Pick<Dirent, 'name' | 'isDirectory' | 'isFile' | 'isSymbolicLink'>

/** A path's canonical form and the stat of what is there, taken together (`SkillFs.resolve`). */
export interface ResolvedPath {
  readonly target: string
  readonly s: Stats
}

/** `T`, or a promise of it when `Async`. */
type Io<Async extends boolean, T> = Async extends true ? Promise<T> : T

/**
 * The few filesystem calls discovery makes, declared once for both shapes:
 * `SkillFs` (libuv thread pool; never blocks the event loop) and
 * `SyncSkillFs` (direct syscalls; 3-5x faster for many small files, used in
 * time slices). Same arguments, semantics and errors; only the I/O differs.
 */
export interface SkillFsOf<Async extends boolean> {
  readdir(path: string): Io<Async, DirEntry[]>
  /**
   * Lists the folder at `path` only if it is the folder whose canonical path
   * is `real` (see `readdirChecked`); undefined when it is not (a symlink, a
   * non-folder, or reached through a swapped parent). Other failures throw
   * as `readdir`'s. `real` null (`AT_SKILL`): a folder right inside the skill
   * folder, whose location is the skill folder's own (see `checkedSync`).
   */
  readdirChecked(path: string, real: string | null): Io<Async, DirEntry[] | undefined>
  /**
   * `lstat`s each of `names` inside the folder at `path`, through a
   * descriptor proved to be the folder at canonical `real` (as
   * `readdirChecked`); undefined when it is not. So every stat is of an entry
   * that was inside that folder: no swapped parent is followed, and no
   * last-component symlink either. A missing name throws, as `stat` does.
   */
  statChecked(
    path: string,
    real: string | null,
    names: readonly string[],
  ): Io<Async, Stats[] | undefined>
  stat(path: string): Io<Async, Stats>
  realpath(path: string): Io<Async, string>
  /**
   * Where `path` leads (its canonical path, following every symlink) and the
   * stat of what is there, both from one descriptor (`O_PATH`, which opens
   * nothing for I/O): the stat is of the very inode at `target`, whatever
   * is swapped along the path meanwhile. Fails as `realpath` does.
   */
  resolve(path: string): Io<Async, ResolvedPath>
  /**
   * Reads a regular file of at most `maxBytes`, opened non-blocking so a FIFO
   * cannot hang, checking the open descriptor: `E_SKILL_SOURCE_TOO_LARGE`
   * when too big, `E_SKILL_SOURCE_FAILED` when not a regular file, unreadable
   * or not the file `expected` (a scan's identity). `label` is the model-safe
   * name used in messages. With `transient`, `bytes` may be a view of a buffer
   * the next call reuses: for callers that decode the bytes at once, sparing
   * an allocation per file (only the sync reader uses it).
   */
  readCapped(
    path: string,
    maxBytes: number,
    label: string,
    expected?: FileIdentity,
    transient?: boolean,
  ): Io<Async, CappedFile>
}

/** Filesystem calls through the thread pool. */
export type SkillFs = SkillFsOf<true>

/** Filesystem calls made directly. */
export type SyncSkillFs = SkillFsOf<false>

// O_NOFOLLOW: a file swapped for a symlink after the scan is refused, not followed.
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW

function checkStat(s: Stats, maxBytes: number, label: string, expected?: FileIdentity): void {
  if (
    expected &&
    (s.ino !== expected.ino ||
      s.size !== expected.size ||
      s.mtimeMs !== expected.mtimeMs ||
      s.ctimeMs !== expected.ctimeMs)
  ) {
    throw new SkillHostError(
      'E_SKILL_SOURCE_FAILED',
      `${label} changed since the skill was scanned; list skills again.`,
    )
  }
  if (!s.isFile())
    throw new SkillHostError('E_SKILL_SOURCE_FAILED', `${label} is not a regular file.`)
  if (s.size > maxBytes) {
    throw new SkillHostError(
      'E_SKILL_SOURCE_TOO_LARGE',
      `${label} is ${s.size} bytes; the limit is ${maxBytes}. Shrink it or raise the source limit.`,
      { data: { size: s.size, limit: maxBytes } },
    )
  }
}

function wrapReadError(err: unknown, label: string): SkillHostError {
  if (SkillHostError.isInstance(err)) return err
  return new SkillHostError('E_SKILL_SOURCE_FAILED', `${label} could not be read.`, {
    cause: err,
    data: { errno: (err as NodeJS.ErrnoException).code },
  })
}

// Both readers read exactly the size the descriptor reported: a file that
// grows later changes its stat hash, so the skill's version goes stale anyway.

/** Filesystem calls through the libuv thread pool. */
export const asyncSkillFs: SkillFs = {
  readdir: (path) => readdir(path, { withFileTypes: true }),
  readdirChecked: (path, real) => checkedAsync(path, real, (held) => readdir(held, WITH_TYPES)),
  statChecked: (path, real, names) =>
    checkedAsync(path, real, (held) => Promise.all(names.map((n) => lstat(`${held}/${n}`)))),
  stat: (path) => stat(path),
  realpath: (path) => realpath(path),
  resolve: resolveAsync,
  readCapped: readCappedAsync,
}

/**
 * `readCapped` through the thread pool with plain callbacks: one promise per
 * file instead of a `FileHandle` and a promise per call.
 */
function readCappedAsync(
  path: string,
  maxBytes: number,
  label: string,
  expected?: FileIdentity,
): Promise<CappedFile> {
  return new Promise((resolve, reject) => {
    openCb(path, FLAGS, (openError, fd) => {
      if (openError) return reject(wrapReadError(openError, label))
      const finish = (error: unknown, file?: CappedFile): void => {
        closeCb(fd, (closeError) => {
          const failure = error ?? closeError
          if (failure) reject(wrapReadError(failure, label))
          else resolve(file!)
        })
      }
      fstatCb(fd, (statError, s) => {
        if (statError) return finish(statError)
        try {
          checkStat(s, maxBytes, label, expected)
        } catch (err) {
          return finish(err)
        }
        const buffer = new Uint8Array(s.size)
        const more = (filled: number): void => {
          if (filled >= buffer.byteLength) {
            done(filled)
            return
          }
          readCb(fd, buffer, filled, buffer.byteLength - filled, null, (readError, bytesRead) => {
            if (readError) return finish(readError)
            if (bytesRead === 0) return done(filled)
            more(filled + bytesRead)
          })
        }
        const done = (filled: number): void =>
          finish(undefined, {
            bytes: buffer.subarray(0, filled),
            size: filled,
            mtimeMs: s.mtimeMs,
            ctimeMs: s.ctimeMs,
            ino: s.ino,
          })
        more(0)
      })
    })
  })
}

/**
 * `join(dir, name)` for a normalized `dir` and a directory entry's `name`
 * (never `.`, `..` or containing a separator), without re-normalizing.
 */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name
}

// Reused by transient synchronous reads of files up to SCRATCH_BYTES.
const SCRATCH_BYTES = 64 * 1024
let scratch: Uint8Array | undefined

function readCappedSync(
  path: string,
  maxBytes: number,
  label: string,
  expected?: FileIdentity,
  transient = false,
): CappedFile {
  let fd: number | undefined
  try {
    fd = openSync(path, FLAGS)
    const s = fstatSync(fd)
    checkStat(s, maxBytes, label, expected)
    const size = s.size
    let buffer: Uint8Array
    if (transient && size <= SCRATCH_BYTES) {
      if (!scratch || scratch.byteLength < size)
        scratch = new Uint8Array(Math.min(SCRATCH_BYTES, Math.max(4096, size * 2)))
      buffer = scratch
    } else buffer = new Uint8Array(size)
    let filled = 0
    while (filled < size) {
      const bytesRead = readSync(fd, buffer, filled, size - filled, null)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return {
      bytes: buffer.subarray(0, filled),
      size: filled,
      mtimeMs: s.mtimeMs,
      ctimeMs: s.ctimeMs,
      ino: s.ino,
    }
  } catch (err) {
    throw wrapReadError(err, label)
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

const WITH_TYPES = { withFileTypes: true } as const

/** Direct synchronous syscalls. */
export const syncSkillFs: SyncSkillFs = {
  readdir: (path) => readdirSync(path, WITH_TYPES),
  readdirChecked: (path, real) => checkedSync(path, real, listHeld),
  statChecked: (path, real, names) => checkedSync(path, real, (held) => statHeld(held, names)),
  stat: (path) => statSync(path),
  // The thread pool's `realpath` is libc's too: both drivers resolve alike, one syscall instead of an lstat per component.
  realpath: (path) => realpathSync.native(path),
  resolve: resolveSync,
  readCapped: readCappedSync,
}

/**
 * True where a held descriptor can be named (`/proc/self/fd/N`, Linux with
 * /proc mounted): `readdirChecked` then proves what it lists. Elsewhere it
 * lists by path, as `readdir` (docs/security.md says so).
 */
export const LISTS_CHECKED: boolean = process.platform === 'linux' && existsSync('/proc/self/fd')

// O_NOFOLLOW: a last component swapped for a symlink fails (ELOOP) instead of being followed.
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** The opened folder is not the one expected: a symlink (ELOOP) or no folder (ENOTDIR) at the path. */
function swapped(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ELOOP' || code === 'ENOTDIR'
}

const listHeld = (held: string): DirEntry[] => readdirSync(held, WITH_TYPES)
const statHeld = (held: string, names: readonly string[]): Stats[] =>
  names.map((n) => lstatSync(`${held}/${n}`))

/**
 * `real` for a folder right inside the skill folder: its only parent is the
 * skill folder, whose own path is listed as given (a stated non-claim,
 * docs/security.md), so proving the descriptor's location would prove only
 * that; `O_NOFOLLOW` alone keeps its last component from being a link.
 */
export const AT_SKILL = null

/**
 * The one rule of a checked folder, both drivers: open `path` as a folder
 * without following a last-component symlink, prove the descriptor's
 * location (`/proc/self/fd/N`, which the kernel gives from the open inode,
 * not from the path) is `real` (so no parent was swapped either), then `use`
 * the folder through the descriptor (`held`) and close it on every path.
 * Not check-then-use: what is used is the very folder that was checked,
 * wherever it moves after. Undefined when it is not that folder. Where no
 * descriptor can be named (`LISTS_CHECKED` false), `use` gets `path` itself.
 * `real` `AT_SKILL`: no location to prove beyond the skill folder's own.
 */
function checkedSync<T>(
  path: string,
  real: string | null,
  use: (held: string) => T,
): T | undefined {
  if (!LISTS_CHECKED) return use(path)
  let fd: number
  try {
    fd = openSync(path, DIR_FLAGS)
  } catch (err) {
    if (swapped(err)) return undefined
    throw err
  }
  try {
    const held = `/proc/self/fd/${fd}`
    return real === AT_SKILL || readlinkSync(held) === real ? use(held) : undefined
  } finally {
    closeSync(fd)
  }
}

/** `checkedSync` through the thread pool: the same steps, the same answers. */
async function checkedAsync<T>(
  path: string,
  real: string | null,
  use: (held: string) => Promise<T>,
): Promise<T | undefined> {
  if (!LISTS_CHECKED) return use(path)
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(path, DIR_FLAGS)
  } catch (err) {
    if (swapped(err)) return undefined
    throw err
  }
  try {
    const held = `/proc/self/fd/${handle.fd}`
    return real === AT_SKILL || (await readlink(held)) === real ? await use(held) : undefined
  } finally {
    await handle.close()
  }
}

/** `SkillFs.resolve`, direct: open `O_PATH` (following links), read where the descriptor is, `fstat` it. */
function resolveSync(path: string): ResolvedPath {
  if (!LISTS_CHECKED) {
    const target = realpathSync.native(path)
    return { target, s: statSync(target) }
  }
  const fd = openSync(path, O_PATH)
  try {
    return { target: readlinkSync(`/proc/self/fd/${fd}`), s: fstatSync(fd) }
  } finally {
    closeSync(fd)
  }
}

/** `resolveSync` through the thread pool. */
async function resolveAsync(path: string): Promise<ResolvedPath> {
  if (!LISTS_CHECKED) {
    const target = await realpath(path)
    return { target, s: await stat(target) }
  }
  const handle = await open(path, O_PATH)
  try {
    const [target, s] = await Promise.all([readlink(`/proc/self/fd/${handle.fd}`), handle.stat()])
    return { target, s }
  } finally {
    await handle.close()
  }
}
