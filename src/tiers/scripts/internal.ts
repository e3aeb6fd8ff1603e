/**
 * The internal entry of tier 3: what the `skillhost` CLI (and the suite's
 * tests and benchmarks) use beyond the public face `index.ts`
 * (`skillhost/sandbox`). Not in package.json `exports`, so no user of the
 * package can import it, and it may change with any release. The CLI may
 * import it and no other file of `tiers/scripts/` (test/layering.test.ts);
 * the manager and the layers above it reach tier 3 through `tier.ts`.
 */

export {
  type CopyOutReport,
  copyOut,
  type DoorRefusal,
  type FileSeen,
} from '../../common/door/copy-out.js'
export { lockPins } from './deps/locked-provision.js'
export type { Requirement } from './deps/requirement.js'
export { provisionedInterpreter } from './deps/script-env.js'
export { scriptRequirements } from './deps/script-requirements.js'
export { isPathInside } from './policy/policy.js'
export { rememberPythonProbes } from './policy/python-probe-cache.js'
export {
  assertInterpreterProgram,
  assertReadPath,
  DEFAULT_INTERPRETER_NAMES,
  INTERPRETER_FAMILIES,
  prepareScriptInterpreters,
} from './policy/script-interpreters.js'
export { describePython } from './policy/user-python.js'
export { buildArgv } from './run/build-argv.js'
export { runScriptOnce, type ScriptOnceCall } from './run/run-script-once.js'
export { runSkillScript } from './run/run-skill-script.js'
export type { ScriptOutcome, ScriptRan } from './run/script-call.js'
export { WORKSPACE_SPOOL_LIMITS } from './run/spool-script-output.js'
export { TIMEOUT_PARAM, validateSkillScript } from './run/validate-skill-script.js'
export { rememberHostLinks } from './sandbox/host-link-cache.js'
export {
  filesFromDirectory,
  filesFromSource,
  type SkippedLink,
} from './skill-copy/skill-copy-files.js'
export { describeInterpreter, type RunsWith } from './tool/describe-interpreter.js'
export { missingPackageHint } from './tool/missing-package-hint.js'
export { previewScriptTools } from './tool/preview-script-tools.js'
export { scriptInputSchema } from './tool/script-input-schema.js'
export { settleScriptResult } from './tool/script-outcome.js'
export type { ScriptRunResult } from './types.js'
export { checkWorkspaceDir, withWorkspaceDir } from './workspace/session-workspace-slot.js'
