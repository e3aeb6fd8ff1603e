import { expect } from 'vitest'
import { isSkillHostErrorCode, SkillHostError } from '../../src/common/errors.js'

/**
 * Cases per fuzz property. Bounded for `npm test`; `SKILLHOST_FUZZ_RUNS=20000
 * npx vitest run test/fuzz` is the longer run (see bench/RESULTS.md).
 */
export const numRuns = Number(process.env.SKILLHOST_FUZZ_RUNS ?? 200)

/**
 * Cases for a property that evaluates a real QuickJS guest per case: a tenth
 * of `numRuns`. Such a property says "a tenth of the runs" in its title, which
 * is how bench/fuzz.mjs counts its cases.
 */
export const guestRuns = Math.max(1, Math.ceil(numRuns / 10))

/** fast-check parameters shared by every fuzz property; a failure prints its seed. */
export const fuzzParams = { numRuns } as const

/**
 * Passes only when `err` is a SkillHostError whose code is documented in
 * error-codes.ts (and is not E_INTERNAL, which would mean a host crash).
 */
export function expectDocumentedError(err: unknown): void {
  if (!SkillHostError.isInstance(err)) throw err
  expect(isSkillHostErrorCode(err.code)).toBe(true)
  expect(err.code).not.toBe('E_INTERNAL')
}

/** Runs `fn`; a thrown value must be a documented SkillHostError. Returns the result or undefined. */
export function settle<T>(fn: () => T): T | undefined {
  try {
    return fn()
  } catch (err) {
    expectDocumentedError(err)
    return undefined
  }
}
