import type { Pool } from 'pg'
import { DEFAULT_POSTGRES_SCHEMA, quotePostgresSchema } from './postgres-schema-name.js'
import { runMigrations } from './run-migrations.js'

/**
 * The advisory lock class (first key of `pg_advisory_xact_lock(int, int)`)
 * the workspace migration holds; the second key is `hashtext(schema)`.
 */
export const WORKSPACE_MIGRATION_LOCK = 0x736b_7773 // 'skws'

/** The workspace tables in `schema`, quoted for SQL. */
export interface WorkspaceTables {
  readonly schema: string
  readonly blobs: string
  readonly files: string
  readonly heads: string
  readonly migrations: string
}

/** The quoted workspace table names in `schema` (validated: a bad name is a `TypeError`, before any query). */
export function workspaceTables(schema: string = DEFAULT_POSTGRES_SCHEMA): WorkspaceTables {
  const s = quotePostgresSchema(schema)
  return {
    schema: s,
    blobs: `${s}.workspace_blobs`,
    files: `${s}.workspace_files`,
    heads: `${s}.workspace_heads`,
    migrations: `${s}.workspace_migrations`,
  }
}

// Each step upgrades the schema by one version; never edit a released step.
// The foreign key is what keeps a blob while any session's file names it: a
// prune that races a writer fails (23503) rather than leave a file without bytes.
const STEPS: readonly ((t: WorkspaceTables) => string)[] = [
  (t) => `
    CREATE TABLE ${t.blobs} (
      digest text PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
      size bigint NOT NULL CHECK (size >= 0),
      data bytea NOT NULL
    );
    CREATE TABLE ${t.files} (
      session text NOT NULL,
      path text NOT NULL,
      digest text NOT NULL REFERENCES ${t.blobs} (digest),
      size bigint NOT NULL,
      mode integer NOT NULL,
      PRIMARY KEY (session, path)
    );
    CREATE INDEX ON ${t.files} (digest);
    CREATE TABLE ${t.heads} (
      session text PRIMARY KEY,
      generation bigint NOT NULL
    );`,
]

/**
 * Creates or upgrades the workspace tables in `schema` (default
 * `skillhost`): `workspace_blobs` (bytes by sha-256, once however many
 * sessions hold them), `workspace_files` (each session's names → digest,
 * size, mode), `workspace_heads` (each session's generation, bumped by
 * every commit, so a replica holding the session knows when to catch up) and
 * `workspace_migrations`. Idempotent and safe when several
 * replicas start at once (one transaction under an advisory lock).
 */
export async function migratePostgresWorkspaces(pool: Pool, schema?: string): Promise<void> {
  const name = schema ?? DEFAULT_POSTGRES_SCHEMA
  const tables = workspaceTables(name)
  await runMigrations(pool, {
    schema: name,
    lock: WORKSPACE_MIGRATION_LOCK,
    versionsTable: tables.migrations,
    tables,
    steps: STEPS,
  })
}
