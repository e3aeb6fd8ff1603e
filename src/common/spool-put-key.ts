/** The longest idempotency key (or session tag) a spool store accepts, in characters. */
export const SPOOL_TAG_MAX = 256

/**
 * Checks a spool tag (an idempotency key or a session): 1–256 characters and
 * no NUL (PostgreSQL text cannot hold one). A bad tag is the host's mistake,
 * so it is a `TypeError` naming `what`.
 */
export function checkSpoolTag(tag: unknown, what: string): string {
  if (
    typeof tag !== 'string' ||
    tag.length === 0 ||
    tag.length > SPOOL_TAG_MAX ||
    tag.includes('\0')
  )
    throw new TypeError(`${what} must be a string of 1–${SPOOL_TAG_MAX} characters without NUL`)
  return tag
}

/** The checked idempotency key of a put (see `SpoolPutOptions`), or undefined when none was given. */
export function putIdempotencyKey(options?: {
  readonly idempotencyKey?: string
}): string | undefined {
  return options?.idempotencyKey === undefined
    ? undefined
    : checkSpoolTag(options.idempotencyKey, 'idempotencyKey')
}
