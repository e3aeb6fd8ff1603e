/**
 * `skillhost/postgres`: PostgreSQL-backed state for replicas that share one
 * database. Sessions: `PostgresSessionStore` and `migratePostgresSessions`;
 * catalog changes: `PostgresCatalogFeed` (LISTEN/NOTIFY). Needs the optional
 * peer `pg` (the caller makes the `pg.Pool`); the root entry never loads
 * this subpath.
 */
export {
  CATALOG_CHANNEL,
  PostgresCatalogFeed,
  type PostgresCatalogFeedOptions,
} from './postgres-catalog-feed.js'
export {
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from './postgres-session-store.js'
export { migratePostgresSessions, SESSION_MIGRATION_LOCK } from './session-schema.js'
