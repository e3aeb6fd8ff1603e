/**
 * `skillhost/postgres`: PostgreSQL-backed state for replicas that share one
 * database. The spool: `PostgresSpoolStore` and `migratePostgresSpool`.
 * Sessions: `PostgresSessionStore` and `migratePostgresSessions`. Session
 * workspaces: `PostgresWorkspaceStore` and `migratePostgresWorkspaces`. Catalog
 * changes: `PostgresCatalogFeed` (LISTEN/NOTIFY). Needs the optional peer
 * `pg` (the caller makes the `pg.Pool`); the root entry never loads this
 * subpath.
 */
export {
  CATALOG_CHANNEL,
  PostgresCatalogFeed,
  type PostgresCatalogFeedOptions,
} from './postgres-catalog-feed.js'
export {
  DEFAULT_POSTGRES_SCHEMA,
  POSTGRES_SCHEMA_PATTERN,
  quotePostgresSchema,
} from './postgres-schema-name.js'
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js'
export { PostgresSpoolStore, type PostgresSpoolStoreOptions } from './postgres-spool-store.js'
export {
  PostgresWorkspaceStore,
  type PostgresWorkspaceStoreOptions,
  WORKSPACE_STORE_ATTEMPTS,
} from './postgres-workspace-store.js'
export { migratePostgresSessions, SESSION_MIGRATION_LOCK } from './session-schema.js'
export {
  migratePostgresSpool,
  SPOOL_CHUNK_BYTES,
  SPOOL_MIGRATION_LOCK,
  SPOOL_SCHEMA_VERSION,
} from './spool-schema.js'
export { migratePostgresWorkspaces, WORKSPACE_MIGRATION_LOCK } from './workspace-schema.js'
