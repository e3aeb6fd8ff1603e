import type { Pool } from 'pg'
import type { SpoolPruneOptions, SpoolPruneResult } from '../../common/index.js'
import { checkSpoolTag } from '../../common/index.js'
import { inTransaction } from './in-transaction.js'
import { guardSpool } from './spool-failed.js'
import type { SpoolTables } from './spool-schema.js'

const bound = (value: unknown, what: string): number | undefined => {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(
      `${what} must be a non-negative number of ${what === 'maxBytes' ? 'bytes' : 'ms'}`,
    )
  return value
}

/** Counts what a `DELETE … RETURNING size` removed. */
const counted = (deletion: string) =>
  `WITH d AS (${deletion} RETURNING size) SELECT count(*)::int AS n, coalesce(sum(size), 0)::float8 AS bytes FROM d`

/**
 * `PostgresSpoolStore.prune`: deletes the rows `options` bound (chunks go
 * with their item), in one transaction: a session's items, then those older
 * than `maxAgeMs`, then the oldest until the rest fit in `maxBytes`, never
 * touching `keepSessions`. Several replicas may prune at once.
 */
export async function prunePostgresSpool(
  pool: Pool,
  t: SpoolTables,
  options: SpoolPruneOptions,
): Promise<SpoolPruneResult> {
  const session =
    options.session === undefined ? undefined : checkSpoolTag(options.session, 'session')
  const maxAgeMs = bound(options.maxAgeMs, 'maxAgeMs')
  const maxBytes = bound(options.maxBytes, 'maxBytes')
  const keep = [...(options.keepSessions ?? [])].map((s) => checkSpoolTag(s, 'keepSessions'))
  const now = options.now ?? Date.now()
  return guardSpool('prune', () =>
    inTransaction(pool, async (client) => {
      let removed = 0
      let removedBytes = 0
      const run = async (deletion: string, values: unknown[]) => {
        const { rows } = await client.query<{ n: number; bytes: number }>(counted(deletion), values)
        removed += rows[0]?.n ?? 0
        removedBytes += rows[0]?.bytes ?? 0
      }
      if (session !== undefined) await run(`DELETE FROM ${t.items} WHERE session = $1`, [session])
      if (maxAgeMs !== undefined)
        await run(
          `DELETE FROM ${t.items} WHERE created_at < $1::float8 AND session <> ALL($2::text[])`,
          [now - maxAgeMs, keep],
        )
      if (maxBytes !== undefined)
        await run(
          `DELETE FROM ${t.items} WHERE id IN (
             SELECT id FROM (
               SELECT id, sum(size) OVER (ORDER BY created_at DESC, seq DESC) AS newer
               FROM ${t.items} WHERE session <> ALL($2::text[])
             ) ranked WHERE newer > $1::float8)`,
          [maxBytes, keep],
        )
      const { rows } = await client.query<{ kept: number }>(
        `SELECT coalesce(sum(size), 0)::float8 AS kept FROM ${t.items} WHERE session <> ALL($1::text[])`,
        [keep],
      )
      return { removed, removedBytes, keptBytes: rows[0]?.kept ?? 0 }
    }),
  )
}
