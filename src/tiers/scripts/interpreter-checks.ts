/**
 * A second internal entry of tier 3, for the CLI's checks that run no
 * script (`validate`, `list`, the sandbox flags): which interpreters are
 * allowed, and whether a declared script or a flag passes the rule the
 * sandbox applies. It loads the rules alone, not the sandbox, so a check
 * over thousands of skills does not pay for bubblewrap's machinery at start.
 * Not in package.json `exports`; the CLI may import it (test/layering.test.ts).
 */

export {
  assertInterpreterProgram,
  assertReadPath,
  DEFAULT_INTERPRETER_NAMES,
  prepareScriptInterpreters,
  scriptInterpreters,
} from './policy/script-interpreters.js'
export { validateSkillScript } from './run/validate-skill-script.js'
export type { SkillScript } from './types.js'
