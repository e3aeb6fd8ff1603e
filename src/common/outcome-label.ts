import { ERROR_CODES } from './error-codes.js'
import { SkillHostError } from './errors.js'

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.keys(ERROR_CODES))

/**
 * How a failure is named outside the process (a metric label, a span
 * attribute): its stable code when it is a `SkillHostError` with a code of
 * docs/errors.md, else `error`. Never the message, which may quote a script's
 * output or a host path, and never a code a plugin made up (the label set
 * stays bounded).
 */
export function failureLabel(error: unknown): string {
  return SkillHostError.isInstance(error) && KNOWN_CODES.has(error.code) ? error.code : 'error'
}

/** The `outcome` of a call: `ok` when nothing was thrown, else `failureLabel(error)`. */
export function outcomeLabel(error: unknown | undefined): string {
  return error === undefined ? 'ok' : failureLabel(error)
}
