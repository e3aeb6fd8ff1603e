import type { ResolvedSkillChannel } from './types.js'

/**
 * One skill a session has loaded: the copy (`ref`) and version it pinned,
 * the channel its body took and the `arguments` it was loaded with (absent:
 * none), so a restore rebuilds the same body from the same folder.
 */
export interface SkillSessionSkill {
  readonly id: string
  /**
   * The qualified ref it was loaded by, when it is a shadowed copy (absent:
   * loaded by its plain id), so a restore loads the same copy again.
   */
  readonly ref?: string
  readonly version: string
  readonly channel: ResolvedSkillChannel
  readonly arguments?: string
}

/**
 * Where a session's workspace lives: a folder on one server process
 * (`replica`). Workspaces are not shared: a session restored elsewhere finds
 * its files only when the same `path` is a shared folder there too.
 */
export interface SkillSessionWorkspace {
  readonly replica: string
  readonly path: string
}

/** What a session has loaded, in load order, where its workspace is, and which process holds it. */
export interface SkillSessionState {
  readonly skills: readonly SkillSessionSkill[]
  readonly workspace?: SkillSessionWorkspace
  /**
   * The server process that last took the session over or changed it
   * (absent in states stored before it existed). A process that serves a
   * session held by another writes its own name, so the revision moves and
   * the process that held it before can let its copy go.
   */
  readonly holder?: string
}

/** A stored session: who owns it, what its transport needs to accept it again, and its state. */
export interface StoredSkillSession {
  readonly sessionId: string
  /**
   * Who may continue the session (a digest of the credential that opened it);
   * a request with another credential is told the session does not exist.
   */
  readonly owner: string
  /** Opaque, JSON-serializable data the transport needs to accept the session (MCP: its `initialize` request). */
  readonly transport: unknown
  readonly state: SkillSessionState
  /** Bumped by every write of `state`; a replica compares it to what it last applied. */
  readonly revision: number
}

/**
 * Where sessions' lifecycle state lives when several server processes serve
 * one conversation (`skillhost/postgres` implements it on PostgreSQL). Every
 * load, unload and refresh runs inside `update`, which holds the session's
 * lock, so two processes mutating one session are serialized.
 */
export interface SkillSessionStore {
  /** Records a new session. Rejects if the id exists. */
  create(session: Omit<StoredSkillSession, 'revision'>): Promise<void>
  /** The stored session, or undefined. Never throws for an unknown or malformed id. */
  get(sessionId: string): Promise<StoredSkillSession | undefined>
  /** The session's revision alone (a cheap check before each request), or undefined when gone. */
  revision(sessionId: string): Promise<number | undefined>
  /**
   * The revisions of many sessions in one round trip (a sweep of the
   * sessions a process holds); a session that is gone is absent. Optional:
   * without it a process keeps a session another took over until its idle
   * timeout.
   */
  revisions?(sessionIds: readonly string[]): Promise<ReadonlyMap<string, number>>
  /**
   * Runs `task` holding the session's lock (other `update`s of the session
   * wait) and writes the state it returns in the same transaction, bumping
   * the revision when the state changed. Resolves to the task's `result` and
   * the revision now stored. `E_SKILL_MANAGER_DISPOSED` when the session is gone.
   */
  update<T>(
    sessionId: string,
    task: (
      current: StoredSkillSession,
    ) => Promise<{ readonly state: SkillSessionState; readonly result: T }>,
  ): Promise<{ readonly result: T; readonly revision: number }>
  /** Ends the session for every process. Resolves true when it existed. */
  remove(sessionId: string): Promise<boolean>
}

/**
 * Tells server processes that one of them refreshed its catalog, so they all
 * serve the same skill versions (`skillhost/postgres`: LISTEN/NOTIFY).
 */
export interface CatalogChangeFeed {
  /** Tells the other processes. */
  publish(): Promise<void>
  /** Calls `listener` when another process published (or when changes may have been missed). */
  subscribe(listener: () => void): () => void
}

/** One file of a stored session workspace: its name, the sha-256 of its bytes, size and mode. */
export interface StoredWorkspaceFile {
  /** Relative, `/`-separated: untrusted on the way back (restore judges it by the door's rules). */
  readonly path: string
  /** Lower-case hex sha-256 of the bytes. */
  readonly digest: string
  readonly size: number
  /** Permission bits as the file had them (`0o755`, `0o644`, …). */
  readonly mode: number
}

/** What one store of a session workspace changes: files to add or replace, names to drop. */
export interface WorkspaceStoreChange {
  /** Files added or changed, each with its bytes (stored once per digest, whoever holds it). */
  readonly put: readonly (StoredWorkspaceFile & { readonly bytes: Uint8Array })[]
  readonly remove: readonly string[]
  /**
   * Called inside the store's transaction with the session's totals after
   * the change; throwing refuses the change whole (nothing is stored).
   */
  readonly check: (totals: { readonly files: number; readonly bytes: number }) => void
}

/**
 * Where session workspaces live when several server processes serve one
 * conversation (`skillhost/postgres`: `PostgresWorkspaceStore`), so a session
 * continued elsewhere finds its files. Content-addressed: a file's bytes are
 * kept once per digest, whatever sessions hold them.
 */
export interface SessionWorkspaceStore {
  /** The session's stored files (at most `maxFiles + 1` of them, in path order). */
  manifest(sessionId: string, maxFiles: number): Promise<StoredWorkspaceFile[]>
  /** The bytes of the given digests; a digest not stored is absent. */
  blobs(digests: readonly string[]): Promise<Map<string, Uint8Array>>
  /**
   * Applies `change` to the session's files at once, or nothing (`check`
   * threw, the store failed); resolves to the session's new generation.
   */
  commit(sessionId: string, change: WorkspaceStoreChange): Promise<number>
  /** The session's generation: bumped by every commit, 0 before the first. */
  generation(sessionId: string): Promise<number>
  /** Removes the session's files, and the bytes no other session holds. */
  remove(sessionId: string): Promise<void>
}
