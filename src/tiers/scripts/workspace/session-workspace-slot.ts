import { realpathSync } from 'node:fs'
import { SkillHostError } from '../../../common/errors.js'
import { resolveSandboxHostUser } from '../sandbox/sandbox-host-user.js'
import type { SkillScriptConfig } from '../types.js'
import { SessionWorkspace, type WorkspaceEntry } from './session-workspace.js'
import { WorkspaceChanges } from './workspace-changes.js'

/**
 * The host's handle on one conversation's workspace (`manager.workspace`):
 * put inputs in before a script runs, take outputs out after. The directory
 * is made on first use, so a conversation that never runs a script never
 * creates one.
 */
export interface ManagerWorkspace {
  /** The workspace itself (made on first call), e.g. for the model's workspace tools. */
  open(): Promise<SessionWorkspace>
  /** The workspace's host path (made on first call). */
  path(): Promise<string>
  /** Writes a file (parents created); refused through a symlink or past the size cap. */
  put(path: string, data: string | Uint8Array): Promise<WorkspaceEntry>
  /** The bytes of a regular file; never follows a symlink. */
  get(path: string): Promise<Uint8Array>
  /** Entries below `prefix` (default all), sorted by path. */
  list(prefix?: string): Promise<WorkspaceEntry[]>
  /** Removes a file or folder. */
  remove(path: string): Promise<void>
  /**
   * Calls `listener` after every change to the workspace, whoever made it:
   * `put`, `remove`, the model's workspace tools, a script call. Returns the
   * function that stops it.
   */
  onChange(listener: () => void): () => void
}

/**
 * One manager's session workspace, created lazily from `scripts.sessionWorkspace`
 * (a deployer's `dir`, or a private directory from the tier's `SkillWorkspace`)
 * and disposed with the manager.
 */
export class SessionWorkspaceSlot implements ManagerWorkspace {
  readonly #config: SkillScriptConfig
  readonly #changes = new WorkspaceChanges()
  #workspace: Promise<SessionWorkspace> | undefined
  #disposed = false

  constructor(config: SkillScriptConfig) {
    this.#config = config
  }

  /** The workspace, made on the first call. */
  open(): Promise<SessionWorkspace> {
    if (this.#disposed) {
      return Promise.reject(
        new SkillHostError('E_SKILL_WORKSPACE_FAILED', 'The session workspace has been disposed.'),
      )
    }
    this.#workspace ??= this.#create()
    // A failed creation is retried on the next use rather than cached.
    this.#workspace.catch(() => {
      this.#workspace = undefined
    })
    return this.#workspace
  }

  async #create(): Promise<SessionWorkspace> {
    const options = this.#config.sessionWorkspace ?? {}
    const sandboxUser = resolveSandboxHostUser(undefined)
    const workspace = await SessionWorkspace.create({
      ...(options.dir === undefined
        ? { privateDir: () => this.#config.workspace.createScratch() }
        : { dir: options.dir }),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
      ...(sandboxUser === undefined ? {} : { sandboxUser }),
    })
    // Listeners subscribe to the slot, before or after the workspace exists.
    workspace.changes.onChange(() => this.#changes.emit())
    return workspace
  }

  onChange(listener: () => void): () => void {
    return this.#changes.onChange(listener)
  }

  async path(): Promise<string> {
    return (await this.open()).path
  }

  async put(path: string, data: string | Uint8Array): Promise<WorkspaceEntry> {
    return (await this.open()).put(path, data)
  }

  async get(path: string): Promise<Uint8Array> {
    return (await (await this.open()).get(path)).bytes
  }

  async list(prefix?: string): Promise<WorkspaceEntry[]> {
    return (await this.open()).list(prefix)
  }

  async remove(path: string): Promise<void> {
    return (await this.open()).remove(path)
  }

  /**
   * Ends the session's warm sandboxes (`SandboxHandle.release`), then
   * removes a private workspace; a deployer's directory stays. Idempotent.
   */
  async dispose(): Promise<void> {
    this.#disposed = true
    const pending = this.#workspace
    this.#workspace = undefined
    const workspace = await pending?.catch(() => undefined)
    if (workspace === undefined) return
    try {
      await this.#config.handle.release?.(workspace)
    } finally {
      await workspace.dispose()
    }
  }
}

/**
 * `config` with a deployer's folder as the session workspace: set as
 * `sessionWorkspace.dir` and added (by real path) to the session policy's
 * write set, which it must be in to be mounted. `undefined` keeps `config`.
 */
export function withWorkspaceDir(
  config: SkillScriptConfig,
  dir: string | undefined,
): SkillScriptConfig {
  if (dir === undefined) return config
  const fs = config.policy.filesystem
  return {
    ...config,
    sessionWorkspace: { ...config.sessionWorkspace, dir },
    policy: {
      ...config.policy,
      filesystem: { ...fs, allowWrite: [...fs.allowWrite, realpathSync(dir)] },
    },
  }
}

/**
 * Opens a deployer's folder as every session will (`SessionWorkspace.create`
 * with the sandbox's identity) and releases it at once, so a folder scripts
 * could not write is `E_SKILL_WORKSPACE_FAILED`, with advice for that folder,
 * when a host starts rather than at the first script call. Changes nothing
 * in the folder.
 */
export async function checkWorkspaceDir(dir: string): Promise<void> {
  const sandboxUser = resolveSandboxHostUser(undefined)
  const workspace = await SessionWorkspace.create({
    dir,
    ...(sandboxUser === undefined ? {} : { sandboxUser }),
  })
  await workspace.dispose()
}
