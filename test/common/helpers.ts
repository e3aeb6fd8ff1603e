import { expect } from 'vitest'
import {
  createTurnContext,
  SkillHostError,
  type SkillHostErrorCode,
  type TurnContext,
} from '../../src/common/index.js'

/** A fresh turn context over a fresh memory spool. */
export function turn(): TurnContext {
  return createTurnContext()
}

/** Asserts `promise` rejects with a SkillHostError of `code`; returns it for more checks. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: SkillHostErrorCode,
): Promise<SkillHostError> {
  let caught: unknown
  try {
    await promise
  } catch (err) {
    caught = err
  }
  expect(
    SkillHostError.isInstance(caught),
    `expected a SkillHostError ${code}, got ${String(caught)}`,
  ).toBe(true)
  expect((caught as SkillHostError).code).toBe(code)
  return caught as SkillHostError
}

/** `n` numbered lines: "line 1" … "line n", newline-terminated. */
export function numbered(n: number): string {
  return `${Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')}\n`
}
