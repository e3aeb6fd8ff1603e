import { constants } from 'node:fs'
import { chmod, chown, type FileHandle, lstat, open, realpath } from 'node:fs/promises'
import { posix } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { trackResource, type Untrack } from '../../../common/leak-tracker.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import { type HostIdentity, untraversableAncestor } from '../sandbox/sandbox-host-user.js'
import {
  at,
  BeneathError,
  type EntryKind,
  openDirBeneath,
  openEntry,
  openRoot,
  removeBeneath,
  type TreeEntry,
  walkBeneath,
} from './beneath.js'
import { PROTECTED_NAMES, protectedPart } from './protected-names.js'
import { removeTree } from './remove-tree.js'
import { folderLock, type TurnLock } from './turn-lock.js'

/** The default total size cap of a session workspace: 1 GiB. */
export const DEFAULT_WORKSPACE_MAX_BYTES = 1024 * 1024 * 1024

/** One file of a session workspace, as `list` reports it. */
export interface WorkspaceEntry {
  /** Relative to the workspace, `/`-separated. */
  readonly path: string
  readonly kind: EntryKind
  readonly size: number
}

/** Options of `SessionWorkspace.create`. */
export interface SessionWorkspaceOptions {
  /**
   * An existing directory to use (e.g. the user's project), kept on dispose.
   * Without it, `privateDir` is used and removed on dispose.
   */
  readonly dir?: string
  /** A fresh private directory this workspace owns (the default). */
  readonly privateDir?: () => Promise<string>
  /** Total bytes of regular files the workspace may hold; default `DEFAULT_WORKSPACE_MAX_BYTES`. */
  readonly maxBytes?: number
  /**
   * The sandbox's host identity when it differs from this process (root runs
   * scripts as `nobody`): a private workspace is group-shared with it, an
   * existing directory must be writable by it, and in both what the host or
   * the model writes is group-shared with it, so the next script can read it.
   */
  readonly sandboxUser?: HostIdentity
  /**
   * Most entries (files, folders, links, anything) the workspace may hold,
   * `.git` and `node_modules` included; default 50,000. A workspace with
   * more cannot be measured, so it counts as full (`E_SKILL_WORKSPACE_FULL`).
   */
  readonly maxEntries?: number
}

/** Deepest folder the host walks; a deeper tree cannot be measured, so it counts as full. */
export const WORKSPACE_MAX_DEPTH = 256

function failed(message: string, cause?: unknown): SkillHostError {
  return new SkillHostError('E_SKILL_WORKSPACE_FAILED', message, { cause })
}

function rejected(path: unknown, why: string): SkillHostError {
  const text = typeof path === 'string' ? path : `(${typeof path})`
  const shown = JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)
  return new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    `The workspace path ${shown} is rejected: ${why}. Use a relative path inside the workspace, such as 'out/report.pdf'.`,
    { data: { reason: why } },
  )
}

/**
 * One conversation's working directory: mounted read-write at `/work` for
 * every script call, and read and written by the host (`put`, `get`, `list`)
 * and by the model's workspace tools while a script may be rewriting it.
 * Every host operation resolves names from held directory descriptors, one
 * component at a time, never through a symlink (see `beneath.ts`), so no
 * swap of any parent can make it reach a file outside the workspace; special
 * files are never opened blocking. Paths go through the skill model's path
 * rule; `.git`, `.hg` and `.svn` are not written or removed. Writes wait until
 * no script call is running, on one lock per folder shared by every session
 * that uses it. The workspace's size and entry count are capped
 * (`E_SKILL_WORKSPACE_FULL`), counting everything; a tree that cannot be
 * measured whole counts as full. A private workspace is removed on dispose;
 * a deployer's directory is kept.
 */
export class SessionWorkspace {
  /** Host path of the workspace directory (real path). */
  readonly path: string
  readonly maxBytes: number
  readonly maxEntries: number
  readonly #owned: boolean
  readonly #share: HostIdentity | undefined
  readonly #lock: TurnLock
  readonly #releaseLock: () => void
  /** Total bytes as last measured and kept up to date by our own writes; undefined once unknown. */
  #usage: number | undefined
  #disposed = false
  /** Every workspace holds its folder's lock until disposed; a private one also its folder. */
  readonly #untrack: Untrack

  private constructor(
    path: string,
    owned: boolean,
    options: SessionWorkspaceOptions,
    lock: { lock: TurnLock; release: () => void },
  ) {
    this.path = path
    this.#owned = owned
    this.#untrack = trackResource('session-workspace', path)
    // Shared in a deployer's directory too: a root-owned 0600 file is unreadable to the sandbox.
    this.#share = options.sandboxUser
    this.maxBytes = options.maxBytes ?? DEFAULT_WORKSPACE_MAX_BYTES
    this.maxEntries = options.maxEntries ?? 50_000
    this.#lock = lock.lock
    this.#releaseLock = lock.release
  }

  /**
   * Opens the deployer's directory or makes a private one. Throws
   * `E_INVALID_SKILLS_CONFIG` for a bad cap and `E_SKILL_WORKSPACE_FAILED`
   * when the directory is missing, not a directory, or the sandbox identity
   * could not reach and write it.
   */
  static async create(options: SessionWorkspaceOptions): Promise<SessionWorkspace> {
    const max = options.maxBytes ?? DEFAULT_WORKSPACE_MAX_BYTES
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        'sessionWorkspace.maxBytes must be a positive integer.',
      )
    }
    const entries = options.maxEntries ?? 50_000
    if (!Number.isSafeInteger(entries) || entries < 1) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        'sessionWorkspace.maxEntries must be a positive integer.',
      )
    }
    if (options.dir !== undefined) {
      const real = await realpath(options.dir).catch((cause: unknown) => {
        throw failed('The session workspace directory does not exist.', cause)
      })
      const st = await lstat(real)
      if (!st.isDirectory()) throw failed('The session workspace is not a directory.')
      await assertReachable(real, options.sandboxUser, st)
      return new SessionWorkspace(real, false, options, folderLock(st))
    }
    if (options.privateDir === undefined) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        'A session workspace needs a directory or a way to make a private one.',
      )
    }
    const dir = await realpath(await options.privateDir())
    try {
      const share = options.sandboxUser
      if (share !== undefined) await chown(dir, -1, share.gid)
      await chmod(dir, share === undefined ? 0o700 : 0o770)
      const st = await lstat(dir)
      await assertReachable(dir, share, st)
      return new SessionWorkspace(dir, true, options, folderLock(st))
    } catch (err) {
      await removeTree(dir).catch(() => undefined)
      throw SkillHostError.isInstance(err)
        ? err
        : failed('The session workspace could not be prepared.', err)
    }
  }

  /** Runs a script call against the workspace; calls share it, writes wait for them. */
  whileRunning<T>(work: () => Promise<T>): Promise<T> {
    this.#alive()
    return this.#lock.run(false, work)
  }

  /**
   * Every entry below the workspace, `.git` and `node_modules` included,
   * never following a symlink; `complete: false` when the tree holds more
   * than `maxEntries` entries, nests deeper than `WORKSPACE_MAX_DEPTH` or has
   * a folder the host cannot read (such a workspace counts as full).
   */
  async snapshot(): Promise<{ entries: Map<string, TreeEntry>; complete: boolean }> {
    this.#alive()
    const root = await this.#root()
    try {
      const walked = await walkBeneath(root, {
        maxEntries: this.maxEntries,
        maxDepth: WORKSPACE_MAX_DEPTH,
      })
      this.#usage = walked.complete ? SessionWorkspace.usage(walked.entries) : undefined
      return walked
    } finally {
      await root.close()
    }
  }

  /**
   * Opens, by descriptor, the version-control state at the workspace's root
   * (`.git`, `.hg`, `.svn`, and the folder a `.git` file's `gitdir:` names
   * when it lies inside the workspace), for the sandbox to bind read-only at
   * `mount/<path>` over the writable workspace. Symlinks are not followed
   * (a symlinked `.git` is left as it is: inside the sandbox it resolves in
   * the sandbox's view). The caller closes every handle after the sandbox
   * has started.
   */
  async openProtected(mount: string): Promise<ProtectedEntry[]> {
    this.#alive()
    const root = await this.#root()
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
      throw failed('The workspace version-control state could not be protected.', err)
    } finally {
      await root.close()
    }
  }

  /** Total bytes of the regular files a snapshot saw. */
  static usage(entries: ReadonlyMap<string, TreeEntry>): number {
    let total = 0
    for (const e of entries.values()) if (e.kind === 'file') total += e.size
    return total
  }

  /** The entries below `prefix` (default the whole workspace), sorted by path, each with its kind. */
  async list(prefix?: string): Promise<WorkspaceEntry[]> {
    const base = prefix === undefined || prefix === '' || prefix === '.' ? '' : this.#rel(prefix)
    const { entries } = await this.snapshot()
    const out: WorkspaceEntry[] = []
    for (const [path, e] of entries) {
      if (base === '' || path === base || path.startsWith(`${base}/`)) {
        out.push({ path, kind: e.kind, size: e.kind === 'file' ? e.size : 0 })
      }
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }

  /**
   * The bytes of one regular file, at most `maxBytes` of them (`truncated`
   * says when more exist). Never follows a symlink in any component; a FIFO,
   * socket or device is refused without blocking.
   */
  async get(
    path: string,
    maxBytes = Number.MAX_SAFE_INTEGER,
  ): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
    this.#alive()
    const rel = this.#rel(path)
    const handle = await this.#openFile(rel, constants.O_RDONLY, false)
    try {
      const st = await handle.stat()
      if (!st.isFile()) throw notAFile(rel, st)
      const want = Math.min(st.size, maxBytes)
      const bytes = new Uint8Array(want)
      let got = 0
      while (got < want) {
        const { bytesRead } = await handle.read(bytes, got, want - got, got)
        if (bytesRead === 0) break
        got += bytesRead
      }
      return { bytes: bytes.subarray(0, got), size: st.size, truncated: st.size > got }
    } finally {
      await handle.close()
    }
  }

  /**
   * Writes one file (replacing a regular file, creating parent folders),
   * after every script call in flight has finished. Refuses a path through a
   * symlink, into `.git`/`.hg`/`.svn`, onto anything but a regular file, and a
   * write that would take the workspace past `maxBytes`.
   */
  async put(path: string, data: string | Uint8Array): Promise<WorkspaceEntry> {
    this.#alive()
    const rel = this.#writable(path)
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    return this.#lock.run(true, async () => {
      const parts = rel.split('/')
      const name = parts.pop() as string
      const parent = await this.#openDir(rel, parts, true)
      try {
        const before = await lstatAt(parent, name)
        if (before !== undefined && !before.isFile()) throw notAFile(rel, before)
        const delta = bytes.byteLength - (before?.size ?? 0)
        // The running total makes a put O(1); only a write that would cross the
        // cap (or an unknown total) pays for a walk, which confirms the figure.
        let after = this.#usage === undefined ? undefined : this.#usage + delta
        if (after === undefined || after > this.maxBytes) {
          const { complete } = await this.snapshot()
          if (!complete) throw unmeasurable(this.maxEntries)
          after = (this.#usage ?? 0) + delta
        }
        if (after > this.maxBytes) throw full(after, this.maxBytes)
        const handle = await openEntry(parent, name, constants.O_WRONLY | constants.O_CREAT).catch(
          (err: NodeJS.ErrnoException) => {
            throw err.code === 'ELOOP'
              ? rejected(path, 'it is a symlink')
              : err.code === 'ENXIO'
                ? rejected(path, 'it is a FIFO')
                : failed(`The workspace file '${rel}' could not be written.`, err)
          },
        )
        try {
          const st = await handle.stat()
          if (!st.isFile()) throw notAFile(rel, st)
          await handle.truncate(0)
          if (this.#share !== undefined) await handle.chown(-1, this.#share.gid)
          await handle.chmod(this.#share === undefined ? 0o600 : 0o660)
          await handle.writeFile(bytes)
        } finally {
          await handle.close()
        }
        if (this.#usage !== undefined) this.#usage += delta
        return { path: rel, kind: 'file', size: bytes.byteLength }
      } finally {
        await parent.close()
      }
    })
  }

  /** Removes one file or folder of the workspace (never through a symlink, never `.git` and the like). */
  async remove(path: string): Promise<void> {
    this.#alive()
    const rel = this.#writable(path)
    await this.#lock.run(true, async () => {
      const parts = rel.split('/')
      const name = parts.pop() as string
      const parent = await this.#openDir(rel, parts, false).catch((err: unknown) => {
        if (err instanceof MissingParent) return undefined
        throw err
      })
      if (parent === undefined) return
      try {
        await removeBeneath(parent, name)
      } catch (err) {
        throw failed(`The workspace path '${rel}' could not be removed.`, err)
      } finally {
        await parent.close()
        this.#usage = undefined
      }
    })
  }

  /** Removes a private workspace (whatever a script left in it); keeps a deployer's directory. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    this.#releaseLock()
    if (this.#owned) await removeTree(this.path)
    this.#untrack()
  }

  #alive(): void {
    if (this.#disposed) throw failed('The session workspace has been disposed.')
  }

  #root(): Promise<FileHandle> {
    return openRoot(this.path).catch((err: unknown) => {
      throw failed('The session workspace could not be opened.', err)
    })
  }

  /** The folder holding `rel`'s last part, opened by descriptor from the root. */
  async #openDir(rel: string, parts: readonly string[], create: boolean): Promise<FileHandle> {
    const root = await this.#root()
    const share = this.#share
    try {
      return await openDirBeneath(
        root,
        parts,
        create
          ? {
              mode: 0o700,
              made: async (dir) => {
                if (share !== undefined) await dir.chown(-1, share.gid)
                await dir.chmod(share === undefined ? 0o700 : 0o770)
              },
            }
          : undefined,
      )
    } catch (err) {
      if (err instanceof BeneathError) {
        if (err.reason === 'symlink') throw rejected(rel, 'it passes through a symlink')
        if (err.reason === 'not-a-folder') throw rejected(rel, 'a parent is not a folder')
        throw new MissingParent(rel)
      }
      throw failed(`The workspace path '${rel}' could not be reached.`, err)
    } finally {
      await root.close()
    }
  }

  async #openFile(rel: string, flags: number, create: boolean): Promise<FileHandle> {
    const parts = rel.split('/')
    const name = parts.pop() as string
    const parent = await this.#openDir(rel, parts, create)
    try {
      return await openEntry(parent, name, flags).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ELOOP'
          ? rejected(rel, 'it is a symlink')
          : err.code === 'ENOENT'
            ? new MissingParent(rel)
            : failed(`The workspace file '${rel}' could not be opened.`, err)
      })
    } finally {
      await parent.close()
    }
  }

  #rel(path: string): string {
    try {
      return normalizeSkillPath(path)
    } catch (err) {
      const reason = SkillHostError.isInstance(err)
        ? String(err.data?.reason ?? 'unsafe')
        : 'unsafe'
      throw rejected(path, reason.replace('the skill folder itself', 'the workspace itself'))
    }
  }

  /** A path the host and the model may write or remove: not inside version-control state. */
  #writable(path: string): string {
    const rel = this.#rel(path)
    const part = protectedPart(rel)
    if (part !== undefined) {
      throw rejected(path, `'${part}' is version-control state, read-only to skills and the model`)
    }
    return rel
  }
}

/** A version-control entry held open for a read-only bind, and where the sandbox shows it. */
export interface ProtectedEntry {
  readonly handle: FileHandle
  readonly sandbox: string
}

/** Linux `O_PATH` (not in `fs.constants`): names an inode for a bind without opening it for I/O. */
const O_PATH = 0o10000000

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

/** A missing folder or file on the way: "no such file" to a reader, nothing to do for a remover. */
class MissingParent extends SkillHostError {
  constructor(rel: string) {
    super('E_SKILL_WORKSPACE_FAILED', `No file '${rel}' in the workspace.`)
  }
}

async function lstatAt(dir: FileHandle, name: string) {
  return lstat(at(dir, name)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw failed('A workspace file could not be checked.', err)
  })
}

function notAFile(
  rel: string,
  st: { isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean; isDirectory(): boolean },
): SkillHostError {
  const what = st.isSymbolicLink()
    ? 'it is a symlink'
    : st.isFIFO()
      ? 'it is a FIFO'
      : st.isSocket()
        ? 'it is a socket'
        : st.isDirectory()
          ? 'it is a folder'
          : 'it is not a regular file'
  return rejected(rel, what)
}

/** `E_SKILL_WORKSPACE_FULL` for a workspace too large or deep to measure whole. */
export function unmeasurable(maxEntries: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FULL',
    `The session workspace holds more than ${maxEntries} entries or nests deeper than ${WORKSPACE_MAX_DEPTH} folders, so it cannot be measured and counts as full; delete files you no longer need (or have the host raise sessionWorkspace.maxEntries).`,
    { data: { maxEntries } },
  )
}

/** `E_SKILL_WORKSPACE_FULL` for a workspace that would hold `bytes`. */
export function full(bytes: number, max: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FULL',
    `The session workspace would hold ${bytes} bytes, over its cap of ${max}; delete files you no longer need (or have the host raise sessionWorkspace.maxBytes).`,
    { data: { bytes, maxBytes: max } },
  )
}

async function assertReachable(
  dir: string,
  identity: HostIdentity | undefined,
  st: { uid: number; gid: number; mode: number },
): Promise<void> {
  if (identity === undefined) return
  const blocked = await untraversableAncestor(dir, identity)
  if (blocked !== undefined)
    throw failed(`The sandbox cannot reach the session workspace: ${blocked}.`)
  const bits = st.uid === identity.uid ? 0o300 : st.gid === identity.gid ? 0o030 : 0o003
  if ((st.mode & bits) !== bits) {
    throw failed(
      `The sandbox (uid ${identity.uid}) cannot write the session workspace; give it write access (chgrp ${identity.gid} and chmod g+rwx) or run the host as the directory's owner.`,
    )
  }
}
