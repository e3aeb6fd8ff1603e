import type { Pool, PoolClient } from 'pg'
import type { Retrievable } from '../../common/index.js'
import {
  checkSpoolTag,
  describeSpooled,
  newSpoolId,
  resolveSpoolRange,
  SPOOL_ID_PATTERN,
  type SpoolByteRange,
  type SpoolContent,
  type SpoolMeta,
  type SpoolPruneOptions,
  type SpoolPruneResult,
  type SpoolPutOptions,
  type SpoolQuotaOptions,
  type SpoolStore,
} from '../../common/index.js'
import {
  activeMetrics,
  putIdempotencyKey,
  reviveSpooled,
  spoolFull,
  spoolRangeStream,
} from '../../common/internal.js'
import { inTransaction } from './in-transaction.js'
import { DEFAULT_POSTGRES_SCHEMA } from './postgres-schema-name.js'
import { prunePostgresSpool } from './prune-postgres-spool.js'
import { guardSpool } from './spool-failed.js'
import { SPOOL_CHUNK_BYTES, type SpoolTables, spoolTables } from './spool-schema.js'

/** Options for `PostgresSpoolStore`. */
export interface PostgresSpoolStoreOptions {
  /** The caller's pool; the store borrows connections and never ends it. */
  readonly pool: Pool
  /**
   * Tags every put (retention by session, idempotency keys scoped to it) and
   * scopes every read: `get`, `open`, `stat` and `delete` find only this
   * session's items. 1–256 characters, no NUL. Without it the store sees
   * every item (a host's view, never a session's).
   */
  readonly session?: string
  /** Where the tables are (`migratePostgresSpool` made them); default `skillhost`. */
  readonly schema?: string
  /**
   * Most bytes and items this store's session holds (`SpoolQuotaOptions`);
   * a put past either rejects with `E_SPOOL_FULL` and stores nothing. No
   * default here (unbounded unless given): items outlive a session and
   * `prune` bounds them. Checked in the put's transaction under a lock per
   * session, so replicas cannot pass it together.
   */
  readonly quota?: SpoolQuotaOptions
}

// Chunks written per INSERT: 1 MiB a statement, few round trips, bounded memory.
const CHUNKS_PER_INSERT = 4

const asBuffer = (bytes: Uint8Array, offset: number, length: number): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset + offset, length)

/**
 * A `SpoolStore` on PostgreSQL, shared by every replica that uses the same
 * database: an item's record and tags are one row of `spool_items`, its
 * content rows of at most 256 KiB in `spool_chunks`, written in one
 * transaction (a reader never sees half an item). `open` streams a range
 * chunk by chunk. A store made for a session reads, streams, stats and
 * deletes only that session's items: another session's id is not found,
 * on any replica. Ids are checked against `SPOOL_ID_PATTERN` before any
 * query and every value is a bound parameter. A put with an
 * `idempotencyKey` already used in this session stores nothing and resolves
 * the first record, also when two replicas race (`INSERT … ON CONFLICT`).
 * A database failure is `E_SPOOL_FAILED`. Run `migratePostgresSpool` once
 * before use.
 */
export class PostgresSpoolStore implements SpoolStore {
  readonly #pool: Pool
  readonly #session: string
  readonly #t: SpoolTables
  readonly #maxBytes: number
  readonly #maxItems: number
  /** The session this store tags its puts with, if any. */
  readonly session: string | undefined
  /** The schema holding the tables. */
  readonly schema: string

  constructor(options: PostgresSpoolStoreOptions) {
    if (typeof options?.pool?.connect !== 'function')
      throw new TypeError('PostgresSpoolStore needs a pg Pool')
    this.#pool = options.pool
    this.session =
      options.session === undefined ? undefined : checkSpoolTag(options.session, 'session')
    this.#session = this.session ?? ''
    this.schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA
    this.#t = spoolTables(this.schema)
    const bound = (n: number | undefined, what: string): number => {
      if (n === undefined || n === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY
      if (!Number.isSafeInteger(n) || n < 1)
        throw new TypeError(`quota.${what} must be a positive integer or Infinity`)
      return n
    }
    this.#maxBytes = bound(options.quota?.maxBytes, 'maxBytes')
    this.#maxItems = bound(options.quota?.maxItems, 'maxItems')
  }

  /**
   * The reads' scope: a store with a session sees only that session's items
   * (an id from another session, deployment or token is not found), a store
   * without one sees every item (the host's view, for retention). `$n` is
   * the session's parameter when there is one.
   */
  #mine(n: number): string {
    return this.session === undefined ? 'true' : `session = $${n}`
  }

  /** The parameter `#mine` binds: the session, or nothing. */
  get #scope(): string[] {
    return this.session === undefined ? [] : [this.session]
  }

  /** Refuses the put just inserted (in `client`'s transaction) when the session is now past its quota. */
  async #checkQuota(client: PoolClient, size: number): Promise<void> {
    if (this.#maxBytes === Number.POSITIVE_INFINITY && this.#maxItems === Number.POSITIVE_INFINITY)
      return
    // One put at a time per session past this point, until commit: the count
    // below then sees every committed put of the session.
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      JSON.stringify(['skillhost-spool-quota', this.schema, this.#session]),
    ])
    const { rows } = await client.query<{ n: string; bytes: string }>(
      `SELECT count(*)::bigint AS n, coalesce(sum(size), 0)::bigint AS bytes FROM ${this.#t.items} WHERE session = $1`,
      [this.#session],
    )
    const items = Number(rows[0]?.n ?? 0)
    const bytes = Number(rows[0]?.bytes ?? 0)
    if (items > this.#maxItems || bytes > this.#maxBytes)
      throw spoolFull({
        maxBytes: this.#maxBytes,
        maxItems: this.#maxItems,
        usedBytes: bytes - size,
        usedItems: items - 1,
        size,
      })
  }

  async put(
    content: SpoolContent,
    meta?: SpoolMeta,
    options?: SpoolPutOptions,
  ): Promise<Retrievable> {
    const key = putIdempotencyKey(options) ?? null
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const record = describeSpooled(newSpoolId(), bytes, meta)
    const t = this.#t
    const metrics = activeMetrics()
    let wrote = false
    const put = await guardSpool('put', () =>
      inTransaction(this.#pool, async (client) => {
        const inserted = await client.query(
          `INSERT INTO ${t.items} (id, session, idempotency_key, size, chunk_bytes, created_at, record)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (session, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
          [
            record.id,
            this.#session,
            key,
            record.size,
            SPOOL_CHUNK_BYTES,
            record.createdAt,
            JSON.stringify(record),
          ],
        )
        if (inserted.rowCount === 0) {
          // The key is taken: the other put has committed (ON CONFLICT waited for it).
          const { rows } = await client.query<{ record: Retrievable }>(
            `SELECT record FROM ${t.items} WHERE session = $1 AND idempotency_key = $2`,
            [this.#session, key],
          )
          const earlier = rows[0]?.record
          if (earlier) return reviveSpooled(earlier)
          throw new Error('the idempotency key was taken and its item deleted; put again')
        }
        await this.#checkQuota(client, record.size)
        await this.#writeChunks(client, record.id, bytes)
        wrote = true
        return record
      }),
    )
    // Counted once committed; a put its key answered with an earlier item wrote nothing.
    if (wrote) metrics?.spoolBytes('postgres', record.size)
    return put
  }

  async #writeChunks(client: PoolClient, id: string, bytes: Uint8Array): Promise<void> {
    const total = Math.ceil(bytes.byteLength / SPOOL_CHUNK_BYTES)
    for (let first = 0; first < total; first += CHUNKS_PER_INSERT) {
      const values: unknown[] = [id]
      const tuples: string[] = []
      for (let seq = first; seq < Math.min(total, first + CHUNKS_PER_INSERT); seq++) {
        const offset = seq * SPOOL_CHUNK_BYTES
        const length = Math.min(SPOOL_CHUNK_BYTES, bytes.byteLength - offset)
        values.push(seq, asBuffer(bytes, offset, length))
        tuples.push(`($1, $${values.length - 1}, $${values.length})`)
      }
      await client.query(
        `INSERT INTO ${this.#t.chunks} (item_id, seq, data) VALUES ${tuples.join(', ')}`,
        values,
      )
    }
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    // One statement, one snapshot: the item row (data NULL when it has no
    // chunks) or nothing, never half an item deleted meanwhile.
    const { rows } = await guardSpool('get', () =>
      this.#pool.query<{ data: Buffer | null }>(
        `SELECT c.data FROM ${this.#t.items} i
         LEFT JOIN ${this.#t.chunks} c ON c.item_id = i.id
         WHERE i.id = $1 AND ${this.#mine(2)} ORDER BY c.seq`,
        [id, ...this.#scope],
      ),
    )
    if (rows.length === 0) return undefined
    const out = new Uint8Array(rows.reduce((n, row) => n + (row.data?.byteLength ?? 0), 0))
    let offset = 0
    for (const row of rows) {
      if (!row.data) continue
      out.set(row.data, offset)
      offset += row.data.byteLength
    }
    return out
  }

  async open(id: string, range?: SpoolByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    const { rows } = await guardSpool('open', () =>
      this.#pool.query<{ size: string; chunk_bytes: number }>(
        `SELECT size, chunk_bytes FROM ${this.#t.items} WHERE id = $1 AND ${this.#mine(2)}`,
        [id, ...this.#scope],
      ),
    )
    const item = rows[0]
    if (!item) return undefined
    const chunkBytes = item.chunk_bytes
    return spoolRangeStream({
      range: resolveSpoolRange(range, Number(item.size)),
      pieceBytes: chunkBytes,
      read: async (offset, length) => {
        const seq = Math.floor(offset / chunkBytes)
        const { rows: piece } = await guardSpool('read', () =>
          this.#pool.query<{ data: Buffer }>(
            `SELECT substring(data FROM $3::int FOR $4::int) AS data FROM ${this.#t.chunks}
             WHERE item_id = $1 AND seq = $2`,
            [id, seq, offset - seq * chunkBytes + 1, length],
          ),
        )
        return piece[0]?.data ?? new Uint8Array(0)
      },
    })
  }

  async stat(id: string): Promise<Retrievable | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    const { rows } = await guardSpool('stat', () =>
      this.#pool.query<{ record: Retrievable }>(
        `SELECT record FROM ${this.#t.items} WHERE id = $1 AND ${this.#mine(2)}`,
        [id, ...this.#scope],
      ),
    )
    const record = rows[0]?.record
    return record ? reviveSpooled(record) : undefined
  }

  async delete(id: string): Promise<boolean> {
    if (!SPOOL_ID_PATTERN.test(id)) return false
    const result = await guardSpool('delete', () =>
      this.#pool.query(`DELETE FROM ${this.#t.items} WHERE id = $1 AND ${this.#mine(2)}`, [
        id,
        ...this.#scope,
      ]),
    )
    return (result.rowCount ?? 0) > 0
  }

  /**
   * Applies retention to the whole spool (every session, not only this
   * store's): see `SpoolPruneOptions`. `skillhost serve` would call
   * `prune({ session })` when a session closes and `prune({ maxAgeMs,
   * maxBytes, keepSessions })` at startup and on a timer.
   */
  prune(options: SpoolPruneOptions): Promise<SpoolPruneResult> {
    return prunePostgresSpool(this.#pool, this.#t, options)
  }
}
