/**
 * The one test helper for "which error code did this throw".
 *
 * Both functions take the thing under test in any of three shapes:
 *  - a promise: its rejection is examined;
 *  - a function returning a promise (or typed so): it is called, and a
 *    synchronous throw counts the same as a rejection; the answer is a promise;
 *  - a synchronous function: it is called, and the answer comes back at once.
 *
 * Code literals stay in the *.test.ts files (test/error-coverage.test.ts looks
 * for them there), so nothing here names a code.
 */
import { expect } from 'vitest'
import { SkillHostError, type SkillHostErrorCode } from '../../src/common/errors.js'

/** Prefix of the outcome for a throw that is not a SkillHostError. */
export const NOT_A_SKILLHOST_ERROR = 'not-a-skillhost-error'

/**
 * What `codeOf` reports: the SkillHostError's code, `'resolved'` when nothing
 * was thrown, or `'not-a-skillhost-error: <the value>'` for any other throw.
 */
export type Outcome = SkillHostErrorCode | 'resolved' | `${typeof NOT_A_SKILLHOST_ERROR}: ${string}`

type Async = PromiseLike<unknown> | (() => PromiseLike<unknown>)

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function show(value: unknown): string {
  try {
    return value instanceof Error ? `${value.name}: ${value.message}` : String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function outcomeOf(err: unknown): Outcome {
  return SkillHostError.isInstance(err) ? err.code : `${NOT_A_SKILLHOST_ERROR}: ${show(err)}`
}

/**
 * Settles `subject` and hands `onValue` / `onError` the result, synchronously
 * when the subject is a function that neither throws asynchronously nor
 * returns a thenable.
 */
function settle<T>(
  subject: unknown,
  onValue: (value: unknown) => T,
  onError: (err: unknown) => T,
): T | Promise<T> {
  let result: unknown = subject
  if (typeof subject === 'function') {
    try {
      result = subject()
    } catch (err) {
      return onError(err)
    }
    if (!isThenable(result)) return onValue(result)
  }
  if (!isThenable(result))
    throw new TypeError('codeOf/rejectsWith: expected a promise or a function')
  return Promise.resolve(result).then(onValue, onError)
}

/**
 * The code of the SkillHostError `subject` throws or rejects with; `'resolved'`
 * if it completes; `'not-a-skillhost-error: …'` for any other thrown value.
 */
// A function that only throws is typed `() => never`, which would match `Async`.
export function codeOf(fn: () => never): Outcome
export function codeOf(subject: Async): Promise<Outcome>
export function codeOf(fn: () => unknown): Outcome
export function codeOf(subject: Async | (() => unknown)): Outcome | Promise<Outcome> {
  return settle<Outcome>(subject, () => 'resolved', outcomeOf)
}

function expectSkillHostError(err: unknown, code: SkillHostErrorCode): SkillHostError {
  expect(
    SkillHostError.isInstance(err),
    `expected a SkillHostError ${code}, got ${show(err)}`,
  ).toBe(true)
  const e = err as SkillHostError
  expect(e.code, e.message).toBe(code)
  return e
}

function unexpectedSuccess(code: SkillHostErrorCode) {
  return (value: unknown): never => {
    expect.unreachable(`expected a SkillHostError ${code}, but it completed with ${show(value)}`)
  }
}

/**
 * Asserts `subject` throws or rejects with a SkillHostError of `code` and
 * returns that error for further checks. Fails the test if it completes, or
 * throws anything else.
 */
export function rejectsWith(fn: () => never, code: SkillHostErrorCode): SkillHostError
export function rejectsWith(subject: Async, code: SkillHostErrorCode): Promise<SkillHostError>
export function rejectsWith(fn: () => unknown, code: SkillHostErrorCode): SkillHostError
export function rejectsWith(
  subject: Async | (() => unknown),
  code: SkillHostErrorCode,
): SkillHostError | Promise<SkillHostError> {
  return settle<SkillHostError>(subject, unexpectedSuccess(code), (err) =>
    expectSkillHostError(err, code),
  )
}
