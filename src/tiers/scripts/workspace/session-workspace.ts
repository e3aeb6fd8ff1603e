import { constants } from 'node:fs'
import { type FileHandle, lstat } from 'node:fs/promises'
import {
  at,
  openRoot,
  removeBeneath,
  type TreeEntry,
  walkBeneath,
} from '../../../common/door/beneath.js'
import type { DoorRefusal } from '../../../common/door/copy-out.js'
import { SkillHostError } from '../../../common/errors.js'
import { trackResource, type Untrack } from '../../../common/leak-tracker.js'
import type { HostIdentity } from '../sandbox/sandbox-host-user.js'
import type { NewEntryOwner } from './assert-reachable.js'
import { openProtectedEntries, type ProtectedEntry } from './protected-entries.js'
import { removeTree } from './remove-tree.js'
import type { TurnLock } from './turn-lock.js'
import { newVersionControl, sweepVersionControl } from './version-control-sweep.js'
import { WorkspaceChanges } from './workspace-changes.js'
import {
  failed,
  full,
  MissingParent,
  notAFile,
  unmeasurable,
  WORKSPACE_MAX_DEPTH,
} from './workspace-errors.js'
import {
  type PreparedWorkspaceFolder,
  prepareWorkspaceFolder,
  writeWorkspaceFile,
} from './workspace-folder.js'
import {
  openWorkspaceDir,
  openWorkspaceEntry,
  workspaceRel,
  writableRel,
} from './workspace-open.js'
import type { WorkspaceEntry, WorkspacePutOptions, WorkspaceRead } from './workspace-types.js'

export type { ProtectedEntry } from './protected-entries.js'
export { full, unmeasurable, WORKSPACE_MAX_DEPTH } from './workspace-errors.js'
export type { WorkspaceEntry, WorkspacePutOptions, WorkspaceRead } from './workspace-types.js'

/** The default total size cap of a session workspace: 1 GiB. */
export const DEFAULT_WORKSPACE_MAX_BYTES = 1024 * 1024 * 1024

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
   * scripts as `nobody`): a private workspace is group-shared with it, and
   * what the host or the model writes there too. An existing directory is
   * never chowned or chmodded: scripts run as its owner when a regular user
   * owns it, as this identity when root does (see `deployerFolderIdentity`),
   * and that identity must be able to write it.
   */
  readonly sandboxUser?: HostIdentity
  /**
   * Most entries (files, folders, links, anything) the workspace may hold,
   * `.git` and `node_modules` included; default 50,000. A workspace with
   * more cannot be measured, so it counts as full (`E_SKILL_WORKSPACE_FULL`).
   */
  readonly maxEntries?: number
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
  /** Who script calls here run as (`SandboxRunRequest.runAs`; see `deployerFolderIdentity`). */
  readonly runAs: HostIdentity | undefined
  readonly #owned: boolean
  readonly #entries: NewEntryOwner
  readonly #lock: TurnLock
  readonly #releaseLock: () => void
  /** Total bytes as last measured and kept up to date by our own writes; undefined once unknown. */
  #usage: number | undefined
  readonly changes = new WorkspaceChanges() // after each put, remove, script call (WorkspaceCall)
  #disposed = false
  /** Every workspace holds its folder's lock until disposed; a private one also its folder. */
  readonly #untrack: Untrack

  private constructor(folder: PreparedWorkspaceFolder, options: SessionWorkspaceOptions) {
    this.path = folder.path
    this.#owned = folder.owned
    this.runAs = folder.runAs
    this.#untrack = trackResource('session-workspace', folder.path)
    this.#entries = folder.entries
    this.maxBytes = options.maxBytes ?? DEFAULT_WORKSPACE_MAX_BYTES
    this.maxEntries = options.maxEntries ?? 50_000
    this.#lock = folder.lock.lock
    this.#releaseLock = folder.lock.release
  }

  /**
   * Opens the deployer's directory or makes a private one. Throws
   * `E_INVALID_SKILLS_CONFIG` for a bad cap and `E_SKILL_WORKSPACE_FAILED`
   * when the directory is missing, not a directory, or the sandbox identity
   * could not reach and write it.
   */
  static async create(options: SessionWorkspaceOptions): Promise<SessionWorkspace> {
    assertPositive('maxBytes', options.maxBytes)
    assertPositive('maxEntries', options.maxEntries)
    return new SessionWorkspace(await prepareWorkspaceFolder(options), options)
  }

  /**
   * A script call's turn on the workspace, released by the returned function
   * (`WorkspaceCall`): calls share it, writes wait for them.
   */
  takeCallTurn(): Promise<() => void> {
    this.#alive()
    return this.#lock.take(false)
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
   * for the sandbox to bind read-only at `mount/<path>`
   * (`openProtectedEntries`). The caller closes every handle after the
   * sandbox has started.
   */
  async openProtected(mount: string): Promise<ProtectedEntry[]> {
    this.#alive()
    const root = await this.#root()
    try {
      return await openProtectedEntries(root, this.path, mount, {
        maxEntries: this.maxEntries,
        maxDepth: WORKSPACE_MAX_DEPTH,
      })
    } catch (err) {
      if (SkillHostError.isInstance(err)) throw err
      throw failed('The workspace version-control state could not be protected.', err)
    } finally {
      await root.close()
    }
  }

  /**
   * In a deployer's folder, removes the version-control entries the call
   * between the walks `before` and `after` made (at any depth) and lists
   * them; a private workspace keeps its own (`copyOut` never lets one out).
   */
  async sweepVersionControl(
    before: ReadonlyMap<string, TreeEntry>,
    after: ReadonlyMap<string, TreeEntry>,
  ): Promise<DoorRefusal[]> {
    const made = this.#owned ? [] : newVersionControl(before, after)
    if (made.length === 0) return []
    const root = await this.#root()
    return sweepVersionControl(root, made).finally(() => root.close())
  }

  /** Total bytes of the regular files a snapshot saw. */
  static usage(entries: ReadonlyMap<string, TreeEntry>): number {
    let total = 0
    for (const e of entries.values()) if (e.kind === 'file') total += e.size
    return total
  }

  /** The entries below `prefix` (default the whole workspace), sorted by path, each with its kind. */
  async list(prefix?: string): Promise<WorkspaceEntry[]> {
    const base = prefix === undefined || prefix === '' || prefix === '.' ? '' : workspaceRel(prefix)
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
   * The bytes of one regular file, at most `maxBytes` (`truncated` says when more
   * exist). Never through a symlink; a FIFO, socket or device is refused unblocked.
   */
  async get(path: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<WorkspaceRead> {
    this.#alive()
    const rel = workspaceRel(path)
    const handle = await this.#openFile(rel, constants.O_RDONLY)
    return readRegular(handle, rel, maxBytes).finally(() => handle.close())
  }

  /**
   * Writes one file (replacing a regular file, making parent folders) once no
   * script call runs. Refuses a path through a symlink, into `.git`/`.hg`/`.svn`,
   * onto a non-file, and a write that would take the workspace past `maxBytes`.
   */
  async put(path: string, data: string | Uint8Array, opts?: PutOptions): Promise<WorkspaceEntry> {
    this.#alive()
    const rel = writableRel(path)
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
        await writeWorkspaceFile(parent, rel, name, bytes, this.#entries, opts?.executable)
        if (this.#usage !== undefined) this.#usage += delta
        this.changes.emit()
        return { path: rel, kind: 'file', size: bytes.byteLength }
      } finally {
        await parent.close()
      }
    })
  }

  /** Removes one file or folder of the workspace (never through a symlink, never `.git` and the like). */
  async remove(path: string): Promise<void> {
    this.#alive()
    const rel = writableRel(path)
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
        this.changes.emit()
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
    try {
      return await openWorkspaceDir(root, rel, parts, create ? this.#entries : undefined)
    } finally {
      await root.close()
    }
  }

  async #openFile(rel: string, flags: number): Promise<FileHandle> {
    const parts = rel.split('/')
    const name = parts.pop() as string
    const parent = await this.#openDir(rel, parts, false)
    try {
      return await openWorkspaceEntry(parent, rel, name, flags)
    } finally {
      await parent.close()
    }
  }
}

/** `E_INVALID_SKILLS_CONFIG` unless the cap `name`, when given, is a positive integer. */
function assertPositive(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      `sessionWorkspace.${name} must be a positive integer.`,
    )
}

type PutOptions = WorkspacePutOptions

/** A regular file's bytes (at most `maxBytes`), identity and mode, from its open descriptor. */
async function readRegular(
  handle: FileHandle,
  rel: string,
  maxBytes: number,
): Promise<WorkspaceRead> {
  const st = await handle.stat()
  if (!st.isFile()) throw notAFile(rel, st)
  const bytes = await readUpTo(handle, Math.min(st.size, maxBytes))
  const truncated = st.size > bytes.byteLength
  return { bytes, size: st.size, truncated, ino: st.ino, links: st.nlink, mode: st.mode & 0o7777 }
}

/** At most `want` bytes from the start of the open file. */
async function readUpTo(handle: FileHandle, want: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(want)
  let got = 0
  while (got < want) {
    const { bytesRead } = await handle.read(bytes, got, want - got, got)
    if (bytesRead === 0) break
    got += bytesRead
  }
  return bytes.subarray(0, got)
}

async function lstatAt(dir: FileHandle, name: string) {
  return lstat(at(dir, name)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw failed('A workspace file could not be checked.', err)
  })
}
