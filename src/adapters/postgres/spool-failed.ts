import { SkillHostError } from '../../common/index.js'

/** What a spool call was doing when its database failed (`data.operation` of `E_SPOOL_FAILED`). */
export type SpoolOperation =
  | 'put'
  | 'get'
  | 'stat'
  | 'open'
  | 'read'
  | 'delete'
  | 'prune'
  | 'migrate'

/**
 * `E_SPOOL_FAILED` for a database failure. The driver's message can name
 * hosts, users or SQL, so it stays in `cause`; the model sees the operation
 * and, when there is one, the SQLSTATE code.
 */
export function spoolFailed(operation: SpoolOperation, cause: unknown): SkillHostError {
  const code = (cause as { code?: unknown } | null)?.code
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
  return new SkillHostError(
    'E_SPOOL_FAILED',
    `The spool store could not ${operation}: its database is unreachable or refused the query. Try again later.`,
    { data: { operation, ...(sqlState ? { sqlState } : {}) }, cause },
  )
}

/** Runs `work`, turning anything but a skillhost error into `E_SPOOL_FAILED`. */
export async function guardSpool<T>(operation: SpoolOperation, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (SkillHostError.isInstance(err)) throw err
    throw spoolFailed(operation, err)
  }
}
