import { ERROR_CODES, isSkillHostErrorCode, type SkillHostErrorCode } from './error-codes.js'

const BRAND = Symbol.for('skillhost.error')

/**
 * Options for a `SkillHostError`. `data` is structured and model-safe; `cause`
 * stays host-side. `person` is the host-only voice of the same error: what a
 * person at the terminal or in the host's log needs (host paths, the deployer's
 * file names, what to type next). It is never shown to a model.
 */
export interface SkillHostErrorOptions {
  data?: Readonly<Record<string, unknown>>
  cause?: unknown
  person?: string
}

/**
 * The one error class skillhost throws. `code` is stable, `status` is HTTP-like,
 * `message` is safe to show a model (no host path, stack or secret): every
 * site builds it only from values known to be safe (ids, codes, sizes, sandbox
 * paths such as /skill/... and /work/...), never by redacting a formatted host
 * message. `data` is structured and model-safe, `cause` keeps the original
 * for the host only, and `person` (non-enumerable, so no JSON or spread
 * carries it) holds the host-only text for a person; read it with `personText`.
 */
export class SkillHostError extends Error {
  override readonly name = 'SkillHostError'
  readonly code: SkillHostErrorCode
  readonly status: number
  readonly data: Readonly<Record<string, unknown>>
  /** The host-only text for a person, when it differs from `message`; see `personText`. */
  declare readonly person?: string

  constructor(code: SkillHostErrorCode, message: string, options: SkillHostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = ERROR_CODES[code].status
    this.data = Object.freeze({ ...(options.data ?? {}) })
    Object.defineProperty(this, BRAND, { value: true })
    // Non-enumerable: JSON.stringify, structuredClone of own enumerable keys
    // and object spread never carry the host's text to a model.
    if (options.person !== undefined)
      Object.defineProperty(this, 'person', { value: options.person, enumerable: false })
  }

  /** Recognizes skillhost errors even across two copies of the package. */
  static isInstance(value: unknown): value is SkillHostError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true
    )
  }

  /** True when `value` is a skillhost error with the given code. */
  static is(value: unknown, code: SkillHostErrorCode): value is SkillHostError {
    return SkillHostError.isInstance(value) && value.code === code
  }
}

/** Shorthand for `new SkillHostError(...)`, for use in `throw` expressions. */
export function skillError(
  code: SkillHostErrorCode,
  message: string,
  options?: SkillHostErrorOptions,
): SkillHostError {
  return new SkillHostError(code, message, options)
}

const MAX_RENDERED = 2_000

/**
 * The person's voice of an error, for a terminal or the host's log: a
 * skillhost error's `person` text when it has one, else its message (already
 * written for anyone); any other thrown value's message, or its string form.
 * May carry host paths: never give it to a model (that is `renderError`).
 */
export function personText(err: unknown): string {
  try {
    if (SkillHostError.isInstance(err)) {
      const person = Object.getOwnPropertyDescriptor(err, 'person')?.value
      return typeof person === 'string' ? person : String(err.message)
    }
    if (err instanceof Error) return err.message
    return String(err)
  } catch {
    return 'an error that cannot be described'
  }
}

/**
 * The text a model sees for an error: `CODE: safe message`. A skillhost error
 * renders its own message (model-safe by construction; its `person` text never
 * appears); anything else renders as a generic internal error, because a
 * thrown value's message may carry secrets or host paths.
 */
export function renderError(err: unknown): string {
  // Reading a brand, code or message can run code (a Proxy trap, a getter);
  // any throw, or a value that is not the shape we made, renders as internal.
  try {
    if (SkillHostError.isInstance(err)) {
      const { code, message } = err
      if (isSkillHostErrorCode(code) && typeof message === 'string') {
        const text = `${code}: ${message}`
        return text.length > MAX_RENDERED ? `${text.slice(0, MAX_RENDERED)}…` : text
      }
    } else if (typeof err === 'object' && err !== null && (err as Error).name === 'AbortError') {
      return 'E_ABORTED: the call was aborted.'
    }
  } catch {}
  return 'E_INTERNAL: the host failed to complete the call.'
}

export { ERROR_CODES, isSkillHostErrorCode, type SkillHostErrorCode } from './error-codes.js'
