/**
 * A test file's explicit opt-out from the leak check (`test/helpers/leak-check.ts`).
 * Call `allowResourceLeaks('why')` at the top of the file; the check then
 * prints what outlived the file, with the reason, instead of failing it.
 * There should be very few: each one is a resource a test keeps on purpose.
 */
let reason: string | undefined

/** Lets resources outlive this test file, for the stated reason. */
export function allowResourceLeaks(why: string): void {
  if (why.trim().length < 10) throw new Error('allowResourceLeaks needs a stated reason')
  reason = why
}

/** Why this file may leak, if it said so. */
export function leakAllowance(): string | undefined {
  return reason
}
