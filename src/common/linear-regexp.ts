import type { RE2JS } from 're2js'
import { firstUsePackage } from './first-use-package.js'

/**
 * re2js, loaded on first use through its CommonJS build (the compilers here
 * are synchronous): about 18 ms of start-up that a process compiling no
 * skill- or model-supplied pattern never pays.
 */
const re2js = firstUsePackage<{ RE2JS: typeof RE2JS }>('re2js')

/** Thrown by `linearRegExp` for a pattern RE2 cannot run in linear time. */
export class NonLinearPatternError extends Error {
  override readonly name = 'NonLinearPatternError'
}

/**
 * Compiles `pattern` with RE2 semantics (re2js): matching time is linear in
 * the input whatever the pattern. The one place skill- and model-supplied
 * regexes are compiled; throws `NonLinearPatternError` for syntax with no
 * linear-time algorithm (backreferences, lookaround).
 */
export function compileLinearRegExp(pattern: string, ignoreCase = false): RE2JS {
  try {
    const RE2 = re2js().RE2JS
    return RE2.compile(pattern, ignoreCase ? RE2.CASE_INSENSITIVE : 0)
  } catch {
    throw new NonLinearPatternError('the pattern is not valid RE2 syntax')
  }
}

/**
 * ajv's `code.regExp` engine backed by RE2 semantics (re2js): `pattern` and
 * `patternProperties` in a schema match in time linear in the input, so a
 * skill-declared `^(a+)+$` cannot hold the host's main thread. JSON Schema's
 * `pattern` is an unanchored search, which is what `test` does. Backreferences
 * and lookaround have no linear-time algorithm: such a pattern throws
 * `NonLinearPatternError` when the schema is compiled, never at call time.
 */
export const linearRegExp = Object.assign(
  (pattern: string, _flags: string): { test(s: string): boolean } => {
    const re = compileLinearRegExp(pattern)
    return { test: (s: string) => re.test(s) }
  },
  // Only read by ajv's standalone code generation, which skillhost does not use.
  { code: 're2js' },
)
