import { SkillHostError } from '../errors.js'

/** What a check returns when the subject lacks an optional feature: never a silent skip. */
export interface ConformanceUnsupported {
  readonly unsupported: string
}

/** One named conformance check. `run` throws on failure. */
export interface ConformanceCheck {
  readonly name: string
  run(): Promise<undefined | ConformanceUnsupported>
}

/** Throws a plain Error with `message` unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

/** Expects `action` to reject with a skillhost error of `code`; `what` names the call in messages. */
export async function expectCode(
  action: () => Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  let result: unknown
  try {
    result = await action()
  } catch (err) {
    check(
      SkillHostError.isInstance(err),
      `${what} rejected with a non-skillhost error: ${String(err)}`,
    )
    check(err.code === code, `${what} rejected with ${err.code}; expected ${code}`)
    return
  }
  throw new Error(`${what} resolved (${typeof result}); expected a rejection with ${code}`)
}

/** Expects `action` to reject (with anything). */
export async function expectRejection(action: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await action()
  } catch {
    return
  }
  throw new Error(`${what} resolved; expected a rejection`)
}
