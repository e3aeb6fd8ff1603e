import { SkillHostError } from './errors.js'

/** What a shared-session call was doing when its store failed (`data.operation` of `E_SESSION_STORE_FAILED`). */
export type SessionStoreOperation =
  | 'create'
  | 'get'
  | 'revision'
  | 'update'
  | 'remove'
  | 'prune'
  | 'store-workspace'
  | 'restore-workspace'

/**
 * `E_SESSION_STORE_FAILED` for a session store that failed or missed its
 * deadline. The driver's message can name hosts, users or SQL, so it stays
 * in `cause` and the person text (the host's log); the reply carries the operation and, when there is one, the
 * SQLSTATE code. A skillhost error is returned as it is (it already says
 * what happened), except `E_SPOOL_FAILED`: a session's spooled results are
 * part of what its store holds (a DELETE removes both), so their database
 * failing is the session store's failure too.
 */
export function sessionStoreFailed(
  operation: SessionStoreOperation,
  cause: unknown,
): SkillHostError {
  if (SkillHostError.isInstance(cause) && cause.code !== 'E_SPOOL_FAILED') return cause
  const failed = SkillHostError.isInstance(cause) ? cause.cause : cause
  const code = (failed as { code?: unknown } | null)?.code
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
  return new SkillHostError(
    'E_SESSION_STORE_FAILED',
    `The session store could not ${operation} this session: its database is unreachable or too slow. The session is kept; try again shortly.`,
    {
      data: { operation, ...(sqlState ? { sqlState } : {}) },
      cause,
      // The driver's own words, for the host's log only.
      person: `The session store could not ${operation} a session: ${driverWords(failed)}`,
    },
  )
}

const driverWords = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown failure'

/** Runs `work`, turning anything but a skillhost error into `E_SESSION_STORE_FAILED`. */
export async function guardSessionStore<T>(
  operation: SessionStoreOperation,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work()
  } catch (err) {
    throw sessionStoreFailed(operation, err)
  }
}

/** True for an error that means "the session store is unavailable now: retry", not "no such session". */
export function isSessionStoreFailure(err: unknown): err is SkillHostError {
  return SkillHostError.isInstance(err) && err.code === 'E_SESSION_STORE_FAILED'
}
