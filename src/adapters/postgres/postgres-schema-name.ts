/** The schema skillhost's tables live in when none is given. */
export const DEFAULT_POSTGRES_SCHEMA = 'skillhost'

/** Schema names skillhost accepts: lower-case letters, digits and `_`, not `pg_…`, ≤ 63 characters. */
export const POSTGRES_SCHEMA_PATTERN = /^(?!pg_)[a-z_][a-z0-9_]{0,62}$/

/**
 * Checks a schema name and returns it double-quoted for SQL. Only
 * `POSTGRES_SCHEMA_PATTERN` passes, so the quoted name needs no escaping and
 * no caller-supplied text is ever spliced into SQL; anything else is a
 * `TypeError` (the deployer's mistake, raised before any query).
 */
export function quotePostgresSchema(schema: string = DEFAULT_POSTGRES_SCHEMA): string {
  if (typeof schema !== 'string' || !POSTGRES_SCHEMA_PATTERN.test(schema))
    throw new TypeError(
      `schema must match ${POSTGRES_SCHEMA_PATTERN} (lower-case letters, digits, _; not pg_…)`,
    )
  return `"${schema}"`
}
