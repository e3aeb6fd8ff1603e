import { createHash } from 'node:crypto'

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

/**
 * A content key for `SpoolPutOptions.idempotencyKey`: the sha256 of the bytes
 * and of the metadata a reader sees (kind, MIME type, title, provenance,
 * trust), so spooling the same bytes as the same thing again resolves the
 * existing item instead of storing a copy, and any other metadata makes a new
 * item. `sha256:` plus 64 hex digits.
 */
export function spoolContentKey(
  content: Uint8Array | string,
  meta: {
    readonly kind?: string
    readonly mimeType?: string
    readonly title?: string
    readonly provenance?: object
    readonly trusted?: boolean
  } = {},
): string {
  const described = JSON.stringify([
    meta.kind ?? 'text',
    meta.mimeType ?? 'text/plain',
    meta.title ?? null,
    meta.trusted === true,
    Object.entries(meta.provenance ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ])
  const hash = createHash('sha256').update(described, 'utf8').update('\0')
  hash.update(typeof content === 'string' ? Buffer.from(content, 'utf8') : content)
  return `sha256:${hash.digest('hex')}`
}
