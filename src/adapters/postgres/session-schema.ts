import type { Pool } from 'pg'
import { DEFAULT_POSTGRES_SCHEMA, quotePostgresSchema } from './postgres-schema-name.js'
import { runMigrations } from './run-migrations.js'

/**
 * The advisory lock class (first key of `pg_advisory_xact_lock(int, int)`)
 * the session migration holds; the second key is `hashtext(schema)`.
 */
export const SESSION_MIGRATION_LOCK = 0x736b_7373 // 'skss'

/** The session tables in `schema`, quoted for SQL. */
export interface SessionTables {
  readonly schema: string
  readonly sessions: string
  readonly migrations: string
}

/** The quoted session table names in `schema` (validated: a bad name is a `TypeError`, before any query). */
export function sessionTables(schema: string = DEFAULT_POSTGRES_SCHEMA): SessionTables {
  const s = quotePostgresSchema(schema)
  return { schema: s, sessions: `${s}.sessions`, migrations: `${s}.session_migrations` }
}

// Each step upgrades the schema by one version; never edit a released step.
const STEPS: readonly ((t: SessionTables) => string)[] = [
  (t) => `
    CREATE TABLE ${t.sessions} (
      id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
      owner text NOT NULL,
      transport jsonb NOT NULL,
      state jsonb NOT NULL,
      revision bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      seen_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX ON ${t.sessions} (seen_at);`,
]

/**
 * Creates or upgrades the session tables in `schema` (default `skillhost`):
 * `sessions` (one row per MCP session: owner digest, the transport's
 * initialize request, the lifecycle state as JSON, a revision and when it
 * was last seen) and `session_migrations`. Idempotent and safe when several
 * replicas start at once (one transaction under an advisory lock).
 */
export async function migratePostgresSessions(pool: Pool, schema?: string): Promise<void> {
  const name = schema ?? DEFAULT_POSTGRES_SCHEMA
  const tables = sessionTables(name)
  await runMigrations(pool, {
    schema: name,
    lock: SESSION_MIGRATION_LOCK,
    versionsTable: tables.migrations,
    tables,
    steps: STEPS,
  })
}
