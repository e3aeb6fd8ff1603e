import type { Pool, PoolClient } from 'pg'
import { SkillHostError } from '../../common/index.js'
import { guardSessionStore, sessionStoreFailed } from '../../common/internal.js'
import type {
  SkillSessionState,
  SkillSessionStore,
  StoredSkillSession,
} from '../../manager/index.js'
import { sameSessionState } from '../../manager/internal.js'
import { inTransaction } from './in-transaction.js'
import { type SessionTables, sessionTables } from './session-schema.js'

/** Options for `PostgresSessionStore`. */
export interface PostgresSessionStoreOptions {
  /** The pool to use; give it its own pool, not the spool's (an update holds a connection while it runs). */
  readonly pool: Pool
  /** Default `skillhost`; run `migratePostgresSessions` on it first. */
  readonly schema?: string
}

/** Session ids accepted at all: anything else is not looked up. */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/
/** Session ids asked for in one query of `revisions`. */
const REVISIONS_PER_QUERY = 1000
/** How stale `seen_at` may get before a revision check refreshes it. */
const SEEN_EVERY = "interval '10 minutes'"

interface Row {
  id: string
  owner: string
  transport: unknown
  state: unknown
  revision: string | number
}

/** A stored state, checked: a row that does not hold one is an error, not a session. */
function parseState(value: unknown): SkillSessionState {
  const v = value as { skills?: unknown; workspace?: unknown; holder?: unknown } | null
  const skills = Array.isArray(v?.skills) ? v.skills : undefined
  const ok =
    skills?.every(
      (s: { id?: unknown; ref?: unknown; version?: unknown; channel?: unknown }) =>
        typeof s?.id === 'string' &&
        (s.ref === undefined || typeof s.ref === 'string') &&
        typeof s.version === 'string' &&
        (s.channel === 'inline' || s.channel === 'handle'),
    ) === true
  const w = v?.workspace as { replica?: unknown; path?: unknown } | undefined
  const badWorkspace =
    w !== undefined && (typeof w?.replica !== 'string' || typeof w.path !== 'string')
  if (!ok || badWorkspace || (v?.holder !== undefined && typeof v.holder !== 'string'))
    throw new SkillHostError('E_INTERNAL', 'A stored session state is malformed.')
  return v as SkillSessionState
}

function toSession(row: Row): StoredSkillSession {
  return {
    sessionId: row.id,
    owner: row.owner,
    transport: row.transport,
    state: parseState(row.state),
    revision: Number(row.revision),
  }
}

/**
 * `SkillSessionStore` on PostgreSQL: one row per session in
 * `<schema>.sessions`. `update` runs in a transaction holding the session
 * row's lock (`SELECT … FOR UPDATE`), so lifecycle calls of one session on
 * any number of replicas run one at a time; the new state is written in the
 * same transaction. Ids are bound as parameters, never spliced into SQL.
 */
export class PostgresSessionStore implements SkillSessionStore {
  readonly #pool: Pool
  readonly #t: SessionTables

  constructor(options: PostgresSessionStoreOptions) {
    this.#pool = options.pool
    this.#t = sessionTables(options.schema)
  }

  async create(session: Omit<StoredSkillSession, 'revision'>): Promise<void> {
    await guardSessionStore('create', () =>
      this.#pool.query(
        `INSERT INTO ${this.#t.sessions} (id, owner, transport, state) VALUES ($1, $2, $3, $4)`,
        [session.sessionId, session.owner, JSON.stringify(session.transport), session.state],
      ),
    )
  }

  async get(sessionId: string): Promise<StoredSkillSession | undefined> {
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return undefined
    const { rows } = await guardSessionStore('get', () =>
      this.#pool.query<Row>(
        `UPDATE ${this.#t.sessions} SET seen_at = now() WHERE id = $1
         RETURNING id, owner, transport, state, revision`,
        [sessionId],
      ),
    )
    return rows[0] ? toSession(rows[0]) : undefined
  }

  async revision(sessionId: string): Promise<number | undefined> {
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return undefined
    const { rows } = await guardSessionStore('revision', () =>
      this.#pool.query<{ revision: string; stale: boolean }>(
        `SELECT revision, seen_at < now() - ${SEEN_EVERY} AS stale FROM ${this.#t.sessions} WHERE id = $1`,
        [sessionId],
      ),
    )
    const row = rows[0]
    if (!row) return undefined
    if (row.stale)
      void this.#pool
        .query(`UPDATE ${this.#t.sessions} SET seen_at = now() WHERE id = $1`, [sessionId])
        .catch(() => undefined)
    return Number(row.revision)
  }

  /** One query for all of `sessionIds` (at most `REVISIONS_PER_QUERY` per query); malformed ids are absent. */
  async revisions(sessionIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const ids = [...new Set(sessionIds)].filter(
      (id) => typeof id === 'string' && SESSION_ID.test(id),
    )
    const out = new Map<string, number>()
    for (let at = 0; at < ids.length; at += REVISIONS_PER_QUERY) {
      const { rows } = await guardSessionStore('revision', () =>
        this.#pool.query<{ id: string; revision: string }>(
          `SELECT id, revision FROM ${this.#t.sessions} WHERE id = ANY($1::text[])`,
          [ids.slice(at, at + REVISIONS_PER_QUERY)],
        ),
      )
      for (const r of rows) out.set(r.id, Number(r.revision))
    }
    return out
  }

  async update<T>(
    sessionId: string,
    task: (current: StoredSkillSession) => Promise<{ state: SkillSessionState; result: T }>,
  ): Promise<{ result: T; revision: number }> {
    // The task's own failure (a skill that cannot be prepared) is not the store's.
    let failedTask: { error: unknown } | undefined
    try {
      return await inTransaction(this.#pool, async (client) => {
        const current = await this.#locked(client, sessionId)
        const { state, result } = await task(current).catch((error: unknown) => {
          failedTask = { error }
          throw error
        })
        if (sameSessionState(state, current.state)) return { result, revision: current.revision }
        const { rows } = await client.query<{ revision: string }>(
          `UPDATE ${this.#t.sessions} SET state = $2, revision = revision + 1, seen_at = now()
           WHERE id = $1 RETURNING revision`,
          [sessionId, state],
        )
        return { result, revision: Number(rows[0]?.revision) }
      })
    } catch (err) {
      if (failedTask && failedTask.error === err) throw err
      throw sessionStoreFailed('update', err)
    }
  }

  async remove(sessionId: string): Promise<boolean> {
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return false
    const { rowCount } = await guardSessionStore('remove', () =>
      this.#pool.query(`DELETE FROM ${this.#t.sessions} WHERE id = $1`, [sessionId]),
    )
    return (rowCount ?? 0) > 0
  }

  /**
   * Removes sessions no request has reached for `maxAgeMs` (clients that
   * vanished without a DELETE); resolves to their ids, for pruning what else
   * they left (their spooled results).
   */
  async prune(maxAgeMs: number): Promise<string[]> {
    const { rows } = await guardSessionStore('prune', () =>
      this.#pool.query<{ id: string }>(
        `DELETE FROM ${this.#t.sessions} WHERE seen_at < now() - make_interval(secs => $1::float8 / 1000) RETURNING id`,
        [maxAgeMs],
      ),
    )
    return rows.map((r) => r.id)
  }

  async #locked(client: PoolClient, sessionId: string): Promise<StoredSkillSession> {
    const { rows } =
      typeof sessionId === 'string' && SESSION_ID.test(sessionId)
        ? await client.query<Row>(
            `SELECT id, owner, transport, state, revision FROM ${this.#t.sessions} WHERE id = $1 FOR UPDATE`,
            [sessionId],
          )
        : { rows: [] as Row[] }
    if (!rows[0])
      throw new SkillHostError(
        'E_SKILL_MANAGER_DISPOSED',
        'This session was ended (on this or another server process); start a new session.',
      )
    return toSession(rows[0])
  }
}
