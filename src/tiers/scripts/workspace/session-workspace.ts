import { constants } from 'node:fs'
import { chmod, chown, lstat, mkdir, open, realpath, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import { type HostIdentity, untraversableAncestor } from '../sandbox/sandbox-host-user.js'
import { removeTree } from './remove-tree.js'
import { type TreeEntry, walkTree } from './walk-tree.js'

/** The default total size cap of a session workspace: 1 GiB. */
export const DEFAULT_WORKSPACE_MAX_BYTES = 1024 * 1024 * 1024

/** One file of a session workspace, as `list` reports it. */
export interface WorkspaceEntry {
  /** Relative to the workspace, `/`-separated. */
  readonly path: string
  readonly kind: 'file' | 'dir' | 'symlink' | 'other'
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
  /** Most entries a walk tracks; past it, changes are not reported. Default 50,000. */
  readonly maxEntries?: number
}

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
 * Shared-or-exclusive turns on the workspace: script calls share it (each
 * sees the others' files as a shell would), a host or model write takes it
 * alone, so a path checked for symlinks cannot be swapped by a running script
 * before the write opens it.
 */
class TurnLock {
  #shared = 0
  #exclusive = false
  readonly #waiting: { exclusive: boolean; go: () => void }[] = []

  async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((go) => {
      this.#waiting.push({ exclusive, go })
      this.#pump()
    })
    try {
      return await work()
    } finally {
      if (exclusive) this.#exclusive = false
      else this.#shared -= 1
      this.#pump()
    }
  }

  #pump(): void {
    while (this.#waiting.length > 0 && !this.#exclusive) {
      const next = this.#waiting[0] as { exclusive: boolean; go: () => void }
      if (next.exclusive && this.#shared > 0) return
      this.#waiting.shift()
      if (next.exclusive) this.#exclusive = true
      else this.#shared += 1
      next.go()
      if (next.exclusive) return
    }
  }
}

/**
 * One conversation's working directory: mounted read-write at `/work` for
 * every script call, and read and written by the host (`put`, `get`, `list`)
 * and by the model's workspace tools. Every path goes through the skill
 * model's path rule and is refused (`E_SKILL_SOURCE_PATH_REJECTED`) when any
 * existing segment is a symlink, since a script may have planted one; files
 * are opened with O_NOFOLLOW. Writes wait until no script call is running.
 * The total size of regular files is capped (`E_SKILL_WORKSPACE_FULL`). A
 * private workspace is removed on dispose; a deployer's directory is kept.
 */
export class SessionWorkspace {
  /** Host path of the workspace directory (real path). */
  readonly path: string
  readonly maxBytes: number
  readonly maxEntries: number
  readonly #owned: boolean
  readonly #share: HostIdentity | undefined
  readonly #lock = new TurnLock()
  /** Total bytes as last measured and kept up to date by our own writes; undefined once unknown. */
  #usage: number | undefined
  #disposed = false

  private constructor(path: string, owned: boolean, options: SessionWorkspaceOptions) {
    this.path = path
    this.#owned = owned
    // Shared in a deployer's directory too: a root-owned 0600 file is unreadable to the sandbox.
    this.#share = options.sandboxUser
    this.maxBytes = options.maxBytes ?? DEFAULT_WORKSPACE_MAX_BYTES
    this.maxEntries = options.maxEntries ?? 50_000
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
    if (options.dir !== undefined) {
      const real = await realpath(options.dir).catch((cause: unknown) => {
        throw failed('The session workspace directory does not exist.', cause)
      })
      const st = await lstat(real)
      if (!st.isDirectory()) throw failed('The session workspace is not a directory.')
      await assertReachable(real, options.sandboxUser, st)
      return new SessionWorkspace(real, false, options)
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
      await assertReachable(dir, share, await lstat(dir))
    } catch (err) {
      await removeTree(dir).catch(() => undefined)
      throw SkillHostError.isInstance(err)
        ? err
        : failed('The session workspace could not be prepared.', err)
    }
    return new SessionWorkspace(dir, true, options)
  }

  /** Runs a script call against the workspace; calls share it, writes wait for them. */
  whileRunning<T>(work: () => Promise<T>): Promise<T> {
    this.#alive()
    return this.#lock.run(false, work)
  }

  /** Every entry below the workspace (symlinks not followed; `.git` and `node_modules` not entered). */
  async snapshot(): Promise<{ entries: Map<string, TreeEntry>; complete: boolean }> {
    this.#alive()
    const walked = await walkTree(this.path, this.maxEntries)
    this.#usage = walked.complete ? SessionWorkspace.usage(walked.entries) : undefined
    return walked
  }

  /** Total bytes of the regular files a snapshot saw. */
  static usage(entries: ReadonlyMap<string, TreeEntry>): number {
    let total = 0
    for (const e of entries.values()) if (e.kind === 'file') total += e.size
    return total
  }

  /** The files below `prefix` (default the whole workspace), sorted by path. */
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
   * says when more exist). Never follows a symlink.
   */
  async get(
    path: string,
    maxBytes = Number.MAX_SAFE_INTEGER,
  ): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
    this.#alive()
    const rel = this.#rel(path)
    await this.#checkParents(rel, false)
    const handle = await open(
      join(this.path, rel),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    ).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ELOOP'
        ? rejected(path, 'it is a symlink')
        : err.code === 'ENOENT'
          ? new SkillHostError('E_SKILL_WORKSPACE_FAILED', `No file '${rel}' in the workspace.`)
          : failed(`The workspace file '${rel}' could not be opened.`, err)
    })
    try {
      const st = await handle.stat()
      if (!st.isFile()) throw failed(`The workspace path '${rel}' is not a regular file.`)
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
   * symlink, and a write that would take the workspace past `maxBytes`.
   */
  async put(path: string, data: string | Uint8Array): Promise<WorkspaceEntry> {
    this.#alive()
    const rel = this.#rel(path)
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    return this.#lock.run(true, async () => {
      await this.#checkParents(rel, false)
      const before = await lstat(join(this.path, rel)).catch(() => undefined)
      if (before !== undefined && !before.isFile()) {
        throw rejected(path, before.isSymbolicLink() ? 'it is a symlink' : 'it is not a file')
      }
      const delta = bytes.byteLength - (before?.size ?? 0)
      // The running total makes a put O(1); only a write that would cross the
      // cap (or an unknown total) pays for a walk, which confirms the figure.
      let after = this.#usage === undefined ? undefined : this.#usage + delta
      if (after === undefined || after > this.maxBytes) {
        await this.snapshot()
        after = (this.#usage ?? 0) + delta
      }
      if (after > this.maxBytes) throw full(after, this.maxBytes)
      await this.#checkParents(rel, true)
      const flags =
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW
      const handle = await open(join(this.path, rel), flags, 0o600).catch(
        (err: NodeJS.ErrnoException) => {
          throw err.code === 'ELOOP'
            ? rejected(path, 'it is a symlink')
            : failed(`The workspace file '${rel}' could not be written.`, err)
        },
      )
      try {
        if (this.#share !== undefined) await handle.chown(-1, this.#share.gid)
        await handle.chmod(this.#share === undefined ? 0o600 : 0o660)
        await handle.writeFile(bytes)
      } finally {
        await handle.close()
      }
      if (this.#usage !== undefined) this.#usage += delta
      return { path: rel, kind: 'file', size: bytes.byteLength }
    })
  }

  /** Removes one file or folder of the workspace (never through a symlink). */
  async remove(path: string): Promise<void> {
    this.#alive()
    const rel = this.#rel(path)
    await this.#lock.run(true, async () => {
      await this.#checkParents(rel, false)
      await rm(join(this.path, rel), { recursive: true, force: true })
      this.#usage = undefined
    })
  }

  /** Removes a private workspace (whatever a script left in it); keeps a deployer's directory. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    if (this.#owned) await removeTree(this.path)
  }

  #alive(): void {
    if (this.#disposed) throw failed('The session workspace has been disposed.')
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

  /** Refuses a path whose existing parents include a symlink or a non-folder; creates missing ones when asked. */
  async #checkParents(rel: string, create: boolean): Promise<void> {
    let dir = this.path
    for (const part of rel.split('/').slice(0, -1)) {
      dir = join(dir, part)
      const st = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined
        throw failed('A workspace folder could not be checked.', err)
      })
      if (st === undefined) {
        if (!create) return
        await mkdir(dir, { mode: 0o700 })
        if (this.#share !== undefined) await chown(dir, -1, this.#share.gid)
        await chmod(dir, this.#share === undefined ? 0o700 : 0o770)
      } else if (st.isSymbolicLink()) {
        throw rejected(rel, 'it passes through a symlink')
      } else if (!st.isDirectory()) {
        throw rejected(rel, 'a parent is not a folder')
      }
    }
  }
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
