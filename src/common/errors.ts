import { ERROR_CODES, isSkillHostErrorCode, type SkillHostErrorCode } from './error-codes.js'

const BRAND = Symbol.for('skillhost.error')

/** Options for a `SkillHostError`. `data` is structured and model-safe; `cause` stays host-side. */
export interface SkillHostErrorOptions {
  data?: Readonly<Record<string, unknown>>
  cause?: unknown
}

/**
 * The one error class skillhost throws. `code` is stable, `status` is HTTP-like,
 * `message` is safe to show a model (no host path, stack or secret), `data` is
 * structured and model-safe, and `cause` keeps the original for the host only.
 */
export class SkillHostError extends Error {
  override readonly name = 'SkillHostError'
  readonly code: SkillHostErrorCode
  readonly status: number
  readonly data: Readonly<Record<string, unknown>>

  constructor(code: SkillHostErrorCode, message: string, options: SkillHostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = ERROR_CODES[code].status
    this.data = Object.freeze({ ...(options.data ?? {}) })
    Object.defineProperty(this, BRAND, { value: true })
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
// Absolute POSIX paths of two or more segments, Windows drive paths and UNC
// paths: anything that looks like a host location is redacted from model text.
const HOST_PATH = /(?:[A-Za-z]:\\[^\s'"`]*|\\\\[^\s'"`]+|(?<![\w.:/])\/(?:[\w.@+-]+\/)+[\w.@+-]*)/g

/** Replaces anything that looks like a host path with `<path>`. */
export function redactHostPaths(text: string): string {
  return text.replace(HOST_PATH, '<path>')
}

/**
 * The text a model sees for an error: `CODE: safe message`. A skillhost error
 * renders its own message with host paths redacted; anything else renders as a
 * generic internal error, because a thrown value's message may carry secrets.
 */
export function renderError(err: unknown): string {
  // Reading a brand, code or message can run code (a Proxy trap, a getter);
  // any throw, or a value that is not the shape we made, renders as internal.
  try {
    if (SkillHostError.isInstance(err)) {
      const { code, message } = err
      if (isSkillHostErrorCode(code) && typeof message === 'string') {
        const text = `${code}: ${redactHostPaths(message)}`
        return text.length > MAX_RENDERED ? `${text.slice(0, MAX_RENDERED)}…` : text
      }
    } else if (typeof err === 'object' && err !== null && (err as Error).name === 'AbortError') {
      return 'E_ABORTED: the call was aborted.'
    }
  } catch {}
  return 'E_INTERNAL: the host failed to complete the call.'
}

export { ERROR_CODES, isSkillHostErrorCode, type SkillHostErrorCode } from './error-codes.js'
