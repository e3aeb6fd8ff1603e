import type { Pool, PoolClient } from 'pg'
import { activeMetrics, guardSessionStore } from '../../common/internal.js'
import type {
  SessionWorkspaceStore,
  StoredWorkspaceFile,
  WorkspaceStoreChange,
} from '../../manager/internal.js'
import { inTransaction } from './in-transaction.js'
import { DEFAULT_POSTGRES_SCHEMA } from './postgres-schema-name.js'
import { type WorkspaceTables, workspaceTables } from './workspace-schema.js'

/** Options for `PostgresWorkspaceStore`. */
export interface PostgresWorkspaceStoreOptions {
  /** The caller's pool; the store borrows a connection per call and never ends it. */
  readonly pool: Pool
  /** Default `skillhost`; run `migratePostgresWorkspaces` on it first. */
  readonly schema?: string
}

/** Session ids accepted at all (as the session store's): anything else holds no files. */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/
const DIGEST = /^[0-9a-f]{64}$/
/** Digests asked for in one SELECT of `blobs` (the caller bounds their bytes). */
const BLOBS_PER_QUERY = 256
/** Bytes of new blobs sent in one INSERT. */
const INSERT_BATCH_BYTES = 8 * 1024 * 1024
/**
 * Attempts of one transaction that met a concurrent writer or pruner on a
 * shared blob (SQLSTATE 23503: the blob it named was pruned; 40P01: two
 * transactions locked shared blobs in crossing order).
 */
export const WORKSPACE_STORE_ATTEMPTS = 8
const RETRIED = new Set(['23503', '40P01', '40001'])

interface FileRow {
  path: string
  digest: string
  size: string | number
  mode: number
}

/**
 * `SessionWorkspaceStore` on PostgreSQL. A file's bytes are stored once per
 * sha-256 in `workspace_blobs`, whatever sessions hold them; each session's
 * names are rows of `workspace_files` (name → digest, size, mode). A commit
 * is one transaction under the session's advisory lock: new blobs, the
 * session's rows, the quota `check` on the session's totals, then the blobs
 * no row names any more are pruned; a session's removal deletes its rows and
 * prunes the same way. The foreign key from every row to its blob is what
 * keeps bytes another session still holds: a prune racing a writer that
 * names the same blob ends one of them with SQLSTATE 23503 (or a deadlock),
 * and that transaction is run again, at most `WORKSPACE_STORE_ATTEMPTS`
 * times in all (`retries` counts them). Values are bound parameters; only
 * the validated schema is spliced into SQL.
 */
export class PostgresWorkspaceStore implements SessionWorkspaceStore {
  readonly #pool: Pool
  readonly #t: WorkspaceTables
  readonly schema: string
  /** Transactions run again after meeting a concurrent writer or pruner (for tests and figures). */
  retries = 0

  constructor(options: PostgresWorkspaceStoreOptions) {
    if (typeof options?.pool?.connect !== 'function')
      throw new TypeError('PostgresWorkspaceStore needs a pg Pool')
    this.#pool = options.pool
    this.schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA
    this.#t = workspaceTables(this.schema)
  }

  async manifest(sessionId: string, maxFiles: number): Promise<StoredWorkspaceFile[]> {
    if (!validSession(sessionId)) return []
    const { rows } = await guardSessionStore('restore-workspace', () =>
      this.#pool.query<FileRow>(
        `SELECT path, digest, size, mode FROM ${this.#t.files} WHERE session = $1 ORDER BY path LIMIT $2`,
        [sessionId, Math.max(0, Math.floor(maxFiles)) + 1],
      ),
    )
    return rows.map((r) => ({ path: r.path, digest: r.digest, size: Number(r.size), mode: r.mode }))
  }

  /**
   * One query per `BLOBS_PER_QUERY` digests, never one unbounded result: the
   * mirror asks in batches bounded by count and bytes (`RESTORE_BATCH_FILES`).
   */
  async blobs(digests: readonly string[]): Promise<Map<string, Uint8Array>> {
    const wanted = [...new Set(digests.filter((d) => typeof d === 'string' && DIGEST.test(d)))]
    const out = new Map<string, Uint8Array>()
    for (let at = 0; at < wanted.length; at += BLOBS_PER_QUERY) {
      const chunk = wanted.slice(at, at + BLOBS_PER_QUERY)
      const { rows } = await guardSessionStore('restore-workspace', () =>
        this.#pool.query<{ digest: string; data: Buffer }>(
          `SELECT digest, data FROM ${this.#t.blobs} WHERE digest = ANY($1::text[])`,
          [chunk],
        ),
      )
      for (const r of rows) out.set(r.digest, new Uint8Array(r.data))
    }
    return out
  }

  async generation(sessionId: string): Promise<number> {
    if (!validSession(sessionId)) return 0
    const { rows } = await guardSessionStore('restore-workspace', () =>
      this.#pool.query<{ generation: string }>(
        `SELECT generation FROM ${this.#t.heads} WHERE session = $1`,
        [sessionId],
      ),
    )
    return Number(rows[0]?.generation ?? 0)
  }

  async commit(sessionId: string, change: WorkspaceStoreChange): Promise<number> {
    if (!validSession(sessionId)) throw new TypeError('a session id is 1–128 printable characters')
    for (const f of change.put)
      if (!DIGEST.test(f.digest)) throw new TypeError('a digest is 64 lower-case hex digits')
    let generation = 0
    // Captured before the first await: the call's metrics, when a call stores.
    const metrics = activeMetrics()
    await this.#retrying('store-workspace', async (client) => {
      await this.#lockSession(client, sessionId)
      const touched = [...change.put.map((f) => f.path), ...change.remove]
      const before = await client.query<{ digest: string }>(
        `SELECT DISTINCT digest FROM ${this.#t.files} WHERE session = $1 AND path = ANY($2::text[])`,
        [sessionId, touched],
      )
      await this.#putBlobs(client, change.put)
      if (change.remove.length > 0)
        await client.query(
          `DELETE FROM ${this.#t.files} WHERE session = $1 AND path = ANY($2::text[])`,
          [sessionId, change.remove],
        )
      if (change.put.length > 0)
        await client.query(
          `INSERT INTO ${this.#t.files} (session, path, digest, size, mode)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::int[])
           ON CONFLICT (session, path) DO UPDATE
             SET digest = excluded.digest, size = excluded.size, mode = excluded.mode`,
          [
            sessionId,
            change.put.map((f) => f.path),
            change.put.map((f) => f.digest),
            change.put.map((f) => f.size),
            change.put.map((f) => f.mode),
          ],
        )
      const { rows } = await client.query<{ n: string; bytes: string }>(
        `SELECT count(*)::bigint AS n, coalesce(sum(size), 0)::bigint AS bytes FROM ${this.#t.files} WHERE session = $1`,
        [sessionId],
      )
      change.check({ files: Number(rows[0]?.n ?? 0), bytes: Number(rows[0]?.bytes ?? 0) })
      await this.#prune(
        client,
        before.rows.map((r) => r.digest),
      )
      const head = await client.query<{ generation: string }>(
        `INSERT INTO ${this.#t.heads} (session, generation) VALUES ($1, 1)
         ON CONFLICT (session) DO UPDATE SET generation = ${this.#t.heads}.generation + 1
         RETURNING generation`,
        [sessionId],
      )
      generation = Number(head.rows[0]?.generation)
    })
    // The files' bytes, as `store="disk"` counts what a call wrote (a blob shared is still counted).
    metrics?.workspaceBytes(
      'postgres',
      change.put.reduce((n, f) => n + f.size, 0),
    )
    return generation
  }

  async remove(sessionId: string): Promise<void> {
    if (!validSession(sessionId)) return
    await this.#retrying('remove', async (client) => {
      await this.#lockSession(client, sessionId)
      const { rows } = await client.query<{ digest: string }>(
        `DELETE FROM ${this.#t.files} WHERE session = $1 RETURNING digest`,
        [sessionId],
      )
      await client.query(`DELETE FROM ${this.#t.heads} WHERE session = $1`, [sessionId])
      await this.#prune(
        client,
        rows.map((r) => r.digest),
      )
    })
  }

  /** Runs `work` in a transaction, again when it met a concurrent writer or pruner. */
  async #retrying(
    operation: 'store-workspace' | 'remove',
    work: (client: PoolClient) => Promise<void>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await guardSessionStore(operation, () => inTransaction(this.#pool, work))
      } catch (err) {
        const sqlState = (err as { data?: { sqlState?: unknown } }).data?.sqlState
        if (
          attempt >= WORKSPACE_STORE_ATTEMPTS ||
          typeof sqlState !== 'string' ||
          !RETRIED.has(sqlState)
        )
          throw err
        this.retries++
      }
    }
  }

  /** One writer per session at a time, on any replica, until the transaction ends. */
  async #lockSession(client: PoolClient, sessionId: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      JSON.stringify(['skillhost-workspace', this.schema, sessionId]),
    ])
  }

  /**
   * Stores the blobs `files` name that are not stored yet. Those already
   * stored are locked (`FOR KEY SHARE`, in digest order) so no prune removes
   * them before this transaction's rows name them.
   */
  async #putBlobs(client: PoolClient, files: WorkspaceStoreChange['put']): Promise<void> {
    const byDigest = new Map<string, Uint8Array>()
    for (const f of files) byDigest.set(f.digest, f.bytes)
    if (byDigest.size === 0) return
    const digests = [...byDigest.keys()].sort()
    const { rows } = await client.query<{ digest: string }>(
      `SELECT digest FROM ${this.#t.blobs} WHERE digest = ANY($1::text[]) ORDER BY digest FOR KEY SHARE`,
      [digests],
    )
    const stored = new Set(rows.map((r) => r.digest))
    let batch: string[] = []
    let bytes = 0
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return
      await client.query(
        `INSERT INTO ${this.#t.blobs} (digest, size, data)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[]) ON CONFLICT (digest) DO NOTHING`,
        [
          batch,
          batch.map((d) => (byDigest.get(d) as Uint8Array).byteLength),
          batch.map((d) => Buffer.from(byDigest.get(d) as Uint8Array)),
        ],
      )
      batch = []
      bytes = 0
    }
    for (const digest of digests) {
      if (stored.has(digest)) continue
      const size = (byDigest.get(digest) as Uint8Array).byteLength
      if (batch.length > 0 && bytes + size > INSERT_BATCH_BYTES) await flush()
      batch.push(digest)
      bytes += size
    }
    await flush()
  }

  /** Deletes those of `digests` no session's file names any more. */
  async #prune(client: PoolClient, digests: readonly string[]): Promise<void> {
    if (digests.length === 0) return
    await client.query(
      `DELETE FROM ${this.#t.blobs} b WHERE b.digest = ANY($1::text[])
       AND NOT EXISTS (SELECT 1 FROM ${this.#t.files} f WHERE f.digest = b.digest)`,
      [[...new Set(digests)].sort()],
    )
  }
}

function validSession(sessionId: unknown): sessionId is string {
  return typeof sessionId === 'string' && SESSION_ID.test(sessionId)
}
