/**
 * `skillhost/postgres`: PostgreSQL-backed state for replicas that share one
 * database. The spool: `PostgresSpoolStore` and `migratePostgresSpool`.
 * Needs the optional peer `pg` (the caller makes the `pg.Pool`); the root
 * entry never loads this subpath.
 */
export {
  DEFAULT_POSTGRES_SCHEMA,
  POSTGRES_SCHEMA_PATTERN,
  quotePostgresSchema,
} from './postgres-schema-name.js'
export { PostgresSpoolStore, type PostgresSpoolStoreOptions } from './postgres-spool-store.js'
export {
  migratePostgresSpool,
  SPOOL_CHUNK_BYTES,
  SPOOL_MIGRATION_LOCK,
  SPOOL_SCHEMA_VERSION,
} from './spool-schema.js'
