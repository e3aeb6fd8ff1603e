import type { Pool } from 'pg'
import { inTransaction } from './in-transaction.js'
import { quotePostgresSchema } from './postgres-schema-name.js'

/** What one family of skillhost tables needs to be created or upgraded. */
export interface Migrations<T> {
  /** The schema the tables live in (validated before any query). */
  readonly schema: string
  /** The advisory lock class this family holds while it migrates (the second key is `hashtext(schema)`). */
  readonly lock: number
  /** The quoted name of the table recording applied versions. */
  readonly versionsTable: string
  /** The quoted table names the steps are written against. */
  readonly tables: T
  /** One SQL text per version, oldest first; a released step is never edited. */
  readonly steps: readonly ((tables: T) => string)[]
}

/**
 * Applies the steps a family of tables has not had yet, in one transaction
 * under its advisory lock: idempotent, and safe when several replicas start
 * at once (one migrates, the others find it done).
 */
export async function runMigrations<T>(pool: Pool, m: Migrations<T>): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [m.lock, m.schema])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quotePostgresSchema(m.schema)}`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${m.versionsTable} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const { rows } = await client.query<{ v: number }>(
      `SELECT coalesce(max(version), 0)::int AS v FROM ${m.versionsTable}`,
    )
    for (let v = rows[0]?.v ?? 0; v < m.steps.length; v++) {
      await client.query((m.steps[v] as (tables: T) => string)(m.tables))
      await client.query(`INSERT INTO ${m.versionsTable} (version) VALUES ($1)`, [v + 1])
    }
  })
}
