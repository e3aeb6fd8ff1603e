import type { Pool } from 'pg'
import { DEFAULT_POSTGRES_SCHEMA, quotePostgresSchema } from './postgres-schema-name.js'
import { runMigrations } from './run-migrations.js'
import { guardSpool } from './spool-failed.js'

/** Rows of content are at most this many bytes: a large item is many rows, never one bytea. */
export const SPOOL_CHUNK_BYTES = 256 * 1024

/**
 * The advisory lock class (first key of `pg_advisory_xact_lock(int, int)`)
 * the spool migration holds; the second key is `hashtext(schema)`. Other
 * skillhost migrations use other classes.
 */
export const SPOOL_MIGRATION_LOCK = 0x736b_7370 // 'sksp'

/** The spool's tables in `schema`, quoted for SQL. */
export interface SpoolTables {
  readonly items: string
  readonly chunks: string
  readonly migrations: string
}

/** The quoted table names of the spool in `schema` (validated). */
export function spoolTables(schema: string = DEFAULT_POSTGRES_SCHEMA): SpoolTables {
  const s = quotePostgresSchema(schema)
  return {
    items: `${s}.spool_items`,
    chunks: `${s}.spool_chunks`,
    migrations: `${s}.spool_migrations`,
  }
}

// Each step upgrades the schema by one version; never edit a released step.
const STEPS: readonly ((t: SpoolTables) => string)[] = [
  (t) => `
    CREATE TABLE ${t.items} (
      id text PRIMARY KEY CHECK (id ~ '^r_[0-9a-f]{16}$'),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      session text NOT NULL DEFAULT '',
      idempotency_key text,
      size bigint NOT NULL CHECK (size >= 0),
      chunk_bytes integer NOT NULL CHECK (chunk_bytes > 0),
      created_at bigint NOT NULL,
      record json NOT NULL
    );
    CREATE UNIQUE INDEX ON ${t.items} (session, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX ON ${t.items} (created_at, seq);
    CREATE INDEX ON ${t.items} (session);
    CREATE TABLE ${t.chunks} (
      item_id text NOT NULL REFERENCES ${t.items} (id) ON DELETE CASCADE,
      seq integer NOT NULL CHECK (seq >= 0),
      data bytea NOT NULL,
      PRIMARY KEY (item_id, seq)
    );`,
]

/** The spool schema version this code writes. */
export const SPOOL_SCHEMA_VERSION = STEPS.length

/**
 * Creates or upgrades the spool tables in `schema` (default `skillhost`):
 * `spool_items` (one row per item: its record, size, session and idempotency
 * key), `spool_chunks` (its content in rows of at most `SPOOL_CHUNK_BYTES`)
 * and `spool_migrations` (applied versions). Idempotent, and safe when
 * several replicas start at once: one transaction under an advisory lock, so
 * one replica migrates and the others find it done. A database that cannot
 * be reached is `E_SPOOL_FAILED`; a bad schema name a `TypeError`.
 */
export async function migratePostgresSpool(pool: Pool, schema?: string): Promise<void> {
  const name = schema ?? DEFAULT_POSTGRES_SCHEMA
  const tables = spoolTables(name)
  await guardSpool('migrate', () =>
    runMigrations(pool, {
      schema: name,
      lock: SPOOL_MIGRATION_LOCK,
      versionsTable: tables.migrations,
      tables,
      steps: STEPS,
    }),
  )
}
