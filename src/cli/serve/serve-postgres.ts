import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Pool } from 'pg'
import {
  migratePostgresSessions,
  migratePostgresSpool,
  migratePostgresWorkspaces,
  PostgresCatalogFeed,
  PostgresSessionStore,
  PostgresSpoolStore,
  PostgresWorkspaceStore,
} from '../../adapters/postgres/index.js'
import { SPOOL_QUOTA_DEFAULTS, type SpoolStore } from '../../common/index.js'
import type { SkillSessionStore } from '../../index.js'
import { missingOptionalPackage, missingPackageMessage } from '../shared/optional-package.js'

/** What `serve --http --postgres` shares through the database, and how to let go of it. */
export interface ServePostgres extends AsyncDisposable {
  /** This process's name in stored workspace locations and catalog notifications. */
  readonly replica: string
  /** The shared session store; its `remove` (a client's DELETE) also removes the session's spooled results. */
  readonly sessionStore: SkillSessionStore
  readonly catalogFeed: PostgresCatalogFeed
  /** Sessions' private workspaces, kept so they follow the session; removed with the session. */
  readonly workspaceStore: PostgresWorkspaceStore
  /** The spool of one session: its puts are tagged with the session id, and it finds only that session's items. */
  spoolFor(sessionId: string): SpoolStore
  /**
   * `SELECT 1` on the session pool, failing past `deadlineMs` (the driver's
   * own timer): the readiness check's question, does the database answer.
   */
  ping(deadlineMs: number): Promise<void>
  /** Removes sessions not seen for `maxAgeMs`, with their spooled results; resolves to how many. */
  prune(maxAgeMs: number): Promise<number>
  /** Stops listening and closes both pools. Idempotent. */
  dispose(): Promise<void>
}

/** How long any one database call of `serve --postgres` may take (connect, query, statement). */
export const POSTGRES_DEADLINE_MS = 15_000

/**
 * The connection settings of every pool and client `serve --postgres`
 * makes: each call has a deadline, so a database that hangs (stopped,
 * partitioned) fails requests with a retryable error instead of holding
 * them. `connectionTimeoutMillis` bounds a connect; `query_timeout` (the
 * driver's own timer) bounds each query even when the server answers
 * nothing, and destroys that connection; `statement_timeout` makes the
 * server end a statement that runs (or waits for a lock held by a hung
 * replica) too long; TCP keepalive notices a peer that vanished.
 */
export function postgresClientConfig(url: string, deadlineMs: number) {
  return {
    connectionString: url,
    application_name: 'skillhost',
    connectionTimeoutMillis: deadlineMs,
    query_timeout: deadlineMs,
    statement_timeout: deadlineMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  }
}

/** `url` with its password (if any) replaced by `***`, for messages and logs. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.href
  } catch {
    return 'the given PostgreSQL URL'
  }
}

/** The failure to tell an operator: the server's own message (it never quotes the password), else the error code. */
function reason(err: unknown, url: string): string {
  const e = err as { message?: unknown; code?: unknown } | null
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(e?.code)
  // pg's own errors never carry the URL, but a parse error could: take no chances.
  const password = (() => {
    try {
      return decodeURIComponent(new URL(url).password)
    } catch {
      return ''
    }
  })()
  return password === '' ? message : message.split(password).join('***')
}

async function loadPg(): Promise<typeof import('pg').default> {
  try {
    return (await import('pg')).default
  } catch (err) {
    const pkg = missingOptionalPackage(err)
    if (pkg !== undefined) throw new Error(missingPackageMessage('serve --postgres', pkg))
    throw err
  }
}

/**
 * The session store `serve` hands the MCP adapter. A DELETE ends the session
 * for every replica: its spooled results and workspace files, then its state
 * (so a failure between leaves the session, and a retried DELETE finishes the
 * job; never results or files of a session that is gone).
 */
function endingEverything(
  sessions: PostgresSessionStore,
  spool: PostgresSpoolStore,
  workspaceStore: PostgresWorkspaceStore,
): SkillSessionStore {
  return {
    create: (session) => sessions.create(session),
    get: (id) => sessions.get(id),
    revision: (id) => sessions.revision(id),
    revisions: (ids) => sessions.revisions(ids),
    update: (id, task) => sessions.update(id, task),
    remove: async (id) => {
      await spool.prune({ session: id })
      await workspaceStore.remove(id)
      return sessions.remove(id)
    },
  }
}

/**
 * Connects `serve` to PostgreSQL at `url`: checks the database answers,
 * migrates the spool and session tables, and starts listening for catalog
 * refreshes. Two pools: one for the spool, one for session state (a
 * lifecycle call holds a session-pool connection while it runs, and may
 * spool meanwhile). Fails with a message naming the redacted URL and the
 * database's reason; never echoes the password.
 */
export async function openServePostgres(
  url: string,
  log: (line: string) => void,
  options: { readonly deadlineMs?: number } = {},
): Promise<ServePostgres> {
  const pg = await loadPg()
  const replica = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const base = postgresClientConfig(url, options.deadlineMs ?? POSTGRES_DEADLINE_MS)
  const spoolPool: Pool = new pg.Pool({ ...base, max: 10 })
  const sessionPool: Pool = new pg.Pool({ ...base, max: 10 })
  const quiet = (err: Error): void => log(`postgres: ${reason(err, url)}`)
  spoolPool.on('error', quiet)
  sessionPool.on('error', quiet)
  const catalogFeed = new PostgresCatalogFeed({
    pool: sessionPool,
    connect: () => new pg.Client(base),
    replica,
    onError: (err) =>
      log(`postgres: catalog LISTEN connection lost, reconnecting: ${reason(err, url)}`),
  })
  const closePools = async (): Promise<void> => {
    await Promise.allSettled([catalogFeed.close(), spoolPool.end(), sessionPool.end()])
  }
  try {
    await sessionPool.query('SELECT 1')
    await migratePostgresSpool(spoolPool)
    await migratePostgresSessions(sessionPool)
    await migratePostgresWorkspaces(spoolPool)
    await catalogFeed.start()
  } catch (err) {
    await closePools()
    throw new Error(
      `cannot use PostgreSQL at ${redactPostgresUrl(url)}: ${reason((err as { cause?: unknown })?.cause ?? err, url)}`,
    )
  }
  const sessions = new PostgresSessionStore({ pool: sessionPool })
  const spool = new PostgresSpoolStore({ pool: spoolPool })
  const workspaceStore = new PostgresWorkspaceStore({ pool: spoolPool })
  const sessionStore = endingEverything(sessions, spool, workspaceStore)
  let disposed: Promise<void> | undefined
  return {
    replica,
    sessionStore,
    catalogFeed,
    workspaceStore,
    // Each session's results are bounded as on one replica (the quota's lock spans replicas).
    spoolFor: (sessionId) =>
      new PostgresSpoolStore({ pool: spoolPool, session: sessionId, quota: SPOOL_QUOTA_DEFAULTS }),
    ping: async (deadlineMs) => {
      // pg reads a per-query `query_timeout` (client.js); its types know only the pool-wide one.
      const query = { text: 'SELECT 1', query_timeout: deadlineMs } as { text: string }
      await sessionPool.query(query)
    },
    prune: async (maxAgeMs) => {
      const gone = await sessions.prune(maxAgeMs)
      for (const session of gone) {
        await spool.prune({ session })
        await workspaceStore.remove(session)
      }
      return gone.length
    },
    dispose: () => {
      disposed ??= closePools()
      return disposed
    },
    [Symbol.asyncDispose]: () => {
      disposed ??= closePools()
      return disposed
    },
  }
}
