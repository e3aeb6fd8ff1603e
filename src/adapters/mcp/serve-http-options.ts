import type { CatalogChangeFeed, SkillSessionStore } from '../../manager/index.js'
import type { SessionWorkspaceStore } from '../../manager/internal.js'
import type { ReadinessReport } from './http-probes.js'
import type { HttpLimit } from './http-replies.js'
import type { McpSessionFactoryOptions } from './serve-stdio.js'

/**
 * The defaults of `serveMcpHttp`'s limits: open sessions (a session holds a
 * manager, about 145 KB, until its idle timeout), request body size, body
 * bytes in flight over all requests (the buffers bodies are read into), the
 * deadline for a body to arrive, how often a shared session with an open
 * notification stream has its stored revision checked, and how often the
 * sessions held here are checked for having moved to another process.
 */
export const SERVE_HTTP_LIMITS = {
  maxSessions: 256,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBodyBytesInFlight: 64 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  storeCheckMs: 5_000,
  moveCheckMs: 30_000,
} as const

/** Options for `serveMcpHttp`. */
export interface ServeMcpHttpOptions extends McpSessionFactoryOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string
  /** The MCP endpoint path. Default `/mcp`. */
  readonly path?: string
  /**
   * Accepted `Host` header values (DNS-rebinding protection). Default: the
   * loopback names with the bound port when `host` is a loopback address;
   * unchecked otherwise (put your own proxy in front).
   */
  readonly allowedHosts?: readonly string[]
  /**
   * When set, every request must carry `Authorization: Bearer <token>`
   * (compared in constant time over sha256 digests); others get 401 with
   * `WWW-Authenticate: Bearer`.
   */
  readonly token?: string
  /**
   * Largest accepted POST body in bytes; a larger one gets 413. Default 4
   * MiB. A body must also nest at most 100 levels and hold at most 4,096
   * arrays and objects plus one per 8 bytes (`JSON_BODY_SHAPE`, checked
   * before it is parsed): 413 otherwise.
   */
  readonly maxBodyBytes?: number
  /**
   * Most request-body bytes the server holds at once, over every request
   * being read: each body is copied into a buffer of its own, and its whole
   * capacity counts (a declared `content-length` at once, before any byte
   * is read). A body that would pass it gets 503 with `Retry-After: 1`.
   * Default 64 MiB.
   */
  readonly maxBodyBytesInFlight?: number
  /**
   * A request body must have arrived whole this many ms after its headers;
   * a slower one gets 408 and its connection is closed (a client trickling
   * bytes cannot hold a buffer open). Default 30 s.
   */
  readonly bodyTimeoutMs?: number
  /**
   * Most sessions open at once (including ones being opened or restored);
   * one more `initialize` gets 503 with `Retry-After: 30`. Default 256.
   */
  readonly maxSessions?: number
  /**
   * Most sessions open at once per credential (the bearer token; without a
   * token every client shares one). Default `maxSessions`.
   */
  readonly maxSessionsPerToken?: number
  /** Called when a limit refuses a request, for logging (no session id: it may have none). */
  readonly onLimit?: (event: {
    readonly limit: HttpLimit
    readonly status: number
    readonly message: string
  }) => void
  /**
   * A session with no request in flight for this long is closed and its
   * manager disposed (clients that vanish without a DELETE would otherwise
   * hold their managers, guests and workspaces forever). Default 30 minutes;
   * 0 disables it. An open notification stream counts as a request in flight.
   */
  readonly idleTimeoutMs?: number
  /**
   * Called when a session starts, ends here, or (with `sessionStore`) is
   * restored here from the store, for logging.
   */
  readonly onSession?: (event: {
    readonly kind: 'opened' | 'closed' | 'restored'
    readonly sessionId: string
  }) => void
  /**
   * Shares sessions between server processes (replicas behind a load
   * balancer, or one process across restarts). Each session's initialize
   * request, owner (a digest of the bearer token) and lifecycle state
   * (loaded skills with their versions and channels, workspace location) are
   * stored; every load, unload and refresh runs under the store's session
   * lock. A request carrying a session id this process does not hold is
   * served after the session is restored from the store: the transport
   * accepts the id again, and each skill is prepared again at its stored
   * version (`E_SKILL_VERSION_GONE`, as a JSON-RPC error, when that version
   * is gone). A session whose workspace was elsewhere says so in its next
   * tool result. Only a DELETE ends a stored session, and it answers 200
   * only once the store removed it; closing here (idle, shutdown) keeps it
   * for other processes. Before every request (notification streams too)
   * the stored revision is checked: a session deleted elsewhere is 404 and
   * ends here. A store that fails (or misses its deadline) answers 503
   * `E_SESSION_STORE_FAILED` with `Retry-After` and ends nothing.
   */
  readonly sessionStore?: SkillSessionStore
  /**
   * With `sessionStore`: where each session's workspace files are kept
   * (`skillhost/postgres`: `PostgresWorkspaceStore`), so they follow the
   * session. What changed is stored after every tool call, before its result
   * is sent; a session restored here gets its files back first
   * (`WorkspaceMirror`). Give it only for private workspaces: a deployer's
   * own folder (`scripts.sessionWorkspace.dir`) is theirs, not mirrored.
   * The caller removes a session's files when it ends (`remove`) — `serve
   * --postgres` does so in its store's `remove`.
   */
  readonly workspaceStore?: SessionWorkspaceStore
  /**
   * With `sessionStore`: every this many ms, each session holding an open
   * notification stream (GET) has its stored revision checked, so a
   * session deleted through another process ends here within this time.
   * Default 5,000; 0 disables it.
   */
  readonly storeCheckMs?: number
  /**
   * With `sessionStore`: every this many ms, one query checks the stored
   * revision of every session held here; a session another process wrote
   * since this one last served it (took it over, or changed it), with
   * nothing in flight here and no request for this long, is let go here
   * (its manager and workspace folder disposed; stored state and files
   * stay), so a session that moved is not held until `idleTimeoutMs`. A
   * later request for it restores it. Default 30,000; 0 disables it.
   */
  readonly moveCheckMs?: number
  /**
   * With `sessionStore`: tells other processes when a session here ran
   * `refresh_skills`, and refreshes every session's catalog here (catalog
   * only, never swapping a loaded version) when another process did.
   */
  readonly catalogFeed?: CatalogChangeFeed
  /** This process's name in stored workspace locations. Default: host name, pid and a random suffix. */
  readonly replica?: string
  /**
   * What `GET /readyz` reports (200 when ready, else 503; a small JSON body
   * of fixed check names and states). Called per request: make it cheap
   * (cache what is costly); one that throws or takes longer than
   * `READINESS_DEADLINE_MS` answers unready. Default: ready while serving.
   * `GET /healthz` always answers 200 while the process serves.
   */
  readonly readiness?: () => Promise<ReadinessReport>
  /**
   * Answer `/healthz` and `/readyz` without the bearer token from any peer
   * (an orchestrator's probes); by default only a loopback peer may skip it.
   */
  readonly healthPublic?: boolean
  /**
   * With `metrics` (`SkillMcpServerOptions.metrics`: every session's tool
   * calls are counted there, and sessions and HTTP limits too), `GET
   * /metrics` serves them as Prometheus text. It needs the bearer token
   * (when one is set) unless this is true. Default false.
   */
  readonly metricsPublic?: boolean
  /** Called when a shared session cannot be restored or a catalog refresh fails, for logging. */
  readonly onSharedError?: (event: { readonly sessionId?: string; readonly error: unknown }) => void
}

/** A running Streamable HTTP server. */
export interface McpHttpServer extends AsyncDisposable {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: URL
  /** Number of open sessions. */
  sessionCount(): number
  /**
   * Closes every session (disposing its manager, then its scope's
   * disposables) and stops listening. Idempotent.
   */
  close(): Promise<void>
}
