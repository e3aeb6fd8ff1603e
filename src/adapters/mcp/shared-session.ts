import type { TurnContext } from '../../common/index.js'
import type {
  SkillManager,
  SkillSessionState,
  SkillSessionStore,
  StoredSkillSession,
} from '../../manager/index.js'
import {
  applySessionState,
  SerialQueue,
  type SessionWorkspaceStore,
  sessionSkills,
  WorkspaceMirror,
} from '../../manager/internal.js'

/** The notice a session restored away from its workspace gives in its next tool result. */
export const WORKSPACE_MOVED_NOTICE =
  'skillhost notice: this session was restored on another server process (or after a restart). ' +
  'Its workspace files from before are NOT here: workspaces are local to one server process, so ' +
  'files written earlier (if any) stayed on the other process or were removed with it. The ' +
  'workspace here starts empty. Results spooled earlier are still readable by id with the ' +
  'artifact_* tools; write again any workspace file you still need.'

/**
 * One MCP session whose lifecycle state lives in a `SkillSessionStore`, so any
 * server process can serve it. Every load, unload and refresh runs under the
 * store's session lock: the local manager is first brought to the stored
 * state, then the call runs, then the new state is written in the same
 * transaction. Before each request the local manager catches up with what
 * other processes wrote (`sync`).
 */
export class SharedSession {
  readonly #queue = new SerialQueue()
  readonly #store: SkillSessionStore
  readonly #id: string
  readonly #replica: string
  readonly #manager: SkillManager
  readonly #ctx: () => TurnContext
  /** The stored revision the local manager reflects; -1 forces a catch-up. */
  #revision = -1
  /** The holder stored at `#revision` (this process once it restored, claimed or wrote). */
  #holder: string | undefined
  #notice: string | undefined
  /** The session's workspace kept in `workspaceStore`, when one is given (and the manager has a workspace). */
  readonly #mirror: WorkspaceMirror | undefined

  constructor(options: {
    store: SkillSessionStore
    sessionId: string
    replica: string
    manager: SkillManager
    ctx: () => TurnContext
    workspaceStore?: SessionWorkspaceStore | undefined
  }) {
    this.#store = options.store
    this.#id = options.sessionId
    this.#replica = options.replica
    this.#manager = options.manager
    this.#ctx = options.ctx
    const workspace = options.manager.workspace
    this.#mirror =
      options.workspaceStore && workspace
        ? new WorkspaceMirror({
            store: options.workspaceStore,
            sessionId: options.sessionId,
            workspace,
          })
        : undefined
  }

  /**
   * The stored revision this process's copy reflects (-1: unknown). When the
   * store holds another, a process wrote the session since this one last
   * served it: the copy here is stale, and an idle one may be let go.
   */
  get revision(): number {
    return this.#revision
  }

  /** True when the session's workspace follows it through a `SessionWorkspaceStore`. */
  get mirrored(): boolean {
    return this.#mirror !== undefined
  }

  /** Catches up with workspace files another process stored for the session; nothing without a store. */
  async pullWorkspace(): Promise<void> {
    await this.#mirror?.pull()
  }

  /** Stores what changed in the workspace (after every tool call, before its result); nothing without a store. */
  async storeWorkspace(): Promise<void> {
    await this.#mirror?.store()
  }

  /** The state to store for a session this process just opened. */
  async initialState(): Promise<SkillSessionState> {
    this.#revision = 0
    this.#holder = this.#replica
    return this.#state()
  }

  /**
   * Rebuilds the session from `stored` (each skill prepared again at its
   * stored version, or `E_SKILL_VERSION_GONE`) and records this process's
   * workspace. With a workspace store the stored files are written into
   * this process's workspace first (`WorkspaceMirror.restore`); without
   * one, a workspace that was elsewhere leaves a notice for the next tool
   * result.
   */
  restore(): Promise<void> {
    return this.#queue.run(async () => {
      await this.#mirror?.restore()
      const { revision } = await this.#store.update(this.#id, async (current) => {
        await applySessionState(this.#manager, this.#ctx(), current.state)
        const state = await this.#state()
        const before = current.state.workspace
        if (!this.#mirror && before && before.path !== state.workspace?.path)
          this.#notice = WORKSPACE_MOVED_NOTICE
        return { state, result: undefined }
      })
      this.#written(revision)
    })
  }

  /**
   * Catches up with writes of other processes; `gone` once the session was
   * ended elsewhere. With `claim` (a request served here), a session another
   * process took over is taken back: its state is written naming this
   * process, so the revision moves and the other lets its copy go.
   */
  sync(options: { readonly claim?: boolean } = {}): Promise<'ok' | 'gone'> {
    return this.#queue.run(async () => {
      const revision = await this.#store.revision(this.#id)
      if (revision === undefined) return 'gone'
      const mine = this.#holder === this.#replica || options.claim !== true
      if (revision === this.#revision && mine) return 'ok'
      const stored = await this.#store.get(this.#id)
      if (!stored) return 'gone'
      if (stored.revision !== this.#revision) await this.#apply(stored)
      if (options.claim === true && stored.state.holder !== this.#replica) await this.#claim()
      return 'ok'
    })
  }

  /** Runs one lifecycle mutation under the session lock and stores its outcome. */
  mutate<T>(run: () => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      try {
        const { result, revision } = await this.#store.update(this.#id, async (current) => {
          if (current.revision !== this.#revision) await this.#apply(current)
          let outcome: { ok: true; value: T } | { ok: false; error: unknown }
          try {
            outcome = { ok: true, value: await run() }
          } catch (error) {
            outcome = { ok: false, error }
          }
          return { state: await this.#state(), result: outcome }
        })
        this.#written(revision)
        if (!result.ok) throw result.error
        return result.value
      } catch (err) {
        // The write may not have happened: catch up from the store next time.
        this.#revision = -1
        throw err
      }
    })
  }

  /** The workspace notice, once. */
  takeNotice(): string | undefined {
    const notice = this.#notice
    this.#notice = undefined
    return notice
  }

  async #apply(stored: StoredSkillSession): Promise<void> {
    this.#revision = -1
    await applySessionState(this.#manager, this.#ctx(), stored.state)
    this.#revision = stored.revision
    this.#holder = stored.state.holder
  }

  /** Writes the session's state naming this process as its holder (under the session lock). */
  async #claim(): Promise<void> {
    const { revision } = await this.#store.update(this.#id, async (current) => {
      if (current.revision !== this.#revision) await this.#apply(current)
      return { state: await this.#state(), result: undefined }
    })
    this.#written(revision)
  }

  /** This process wrote (or found unchanged) the state at `revision`: it is the holder. */
  #written(revision: number): void {
    this.#revision = revision
    this.#holder = this.#replica
  }

  async #state(): Promise<SkillSessionState> {
    const workspace = this.#manager.workspace
    return {
      skills: sessionSkills(this.#manager),
      ...(workspace ? { workspace: { replica: this.#replica, path: await workspace.path() } } : {}),
      holder: this.#replica,
    }
  }
}
