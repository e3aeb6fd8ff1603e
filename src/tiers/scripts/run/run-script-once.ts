import type { SkillRef, SkillScriptDeclaration } from '../../../sources/types.js'
import { assertHostEnvIsolated } from '../policy/host-env-isolated.js'
import { SkillCopyMaker } from '../skill-copy/skill-copy.js'
import type { WorkspaceFileSource } from '../skill-copy/skill-copy-files.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import { SessionWorkspaceSlot, withWorkspaceDir } from '../workspace/session-workspace-slot.js'
import { runScriptCall } from './run-script-call.js'
import { unwrapScriptOutcome } from './run-skill-script.js'
import type { ScriptOutcome, ScriptRan, ScriptRequest } from './script-call.js'
import type { ValidatedSkillScript } from './validate-skill-script.js'

/**
 * What one run names: a script the skill declares, with its typed arguments,
 * or any other file of the skill, run undeclared by its shebang or extension
 * with literal argv elements (as `run_<skill>_script` runs it).
 */
export type ScriptOnceCall =
  | {
      readonly declared: SkillScriptDeclaration
      readonly args: Readonly<Record<string, unknown>>
    }
  | { readonly path: string; readonly argv: readonly string[] }

/** One script of one skill, run once from its source. */
export interface RunScriptOnceInput {
  readonly source: WorkspaceFileSource
  readonly ref: SkillRef
  readonly call: ScriptOnceCall
  /**
   * A folder of the caller's mounted read-write at `/work` as the session
   * workspace (added to the session policy's write set, see
   * `withWorkspaceDir`); it stays. Without it the workspace is a fresh
   * private folder, removed afterwards.
   */
  readonly workspaceDir?: string
  /** The deadline in seconds; defaults to the config's `defaultTimeoutSeconds`. */
  readonly timeoutSeconds?: number
  /** Return a timed-out run (`timedOut: true`, output so far) instead of throwing `E_SKILL_SCRIPT_TIMEOUT`. */
  readonly returnTimedOut?: boolean
  readonly signal?: AbortSignal
  /** Called with the open session workspace before the script runs: put the call's inputs in. */
  readonly prepare?: (workspace: SessionWorkspace) => Promise<void>
  /**
   * Called with the session workspace and the run's result after the script
   * ended and before a private workspace is removed: take outputs out.
   */
  readonly collect?: (workspace: SessionWorkspace, result: ScriptRunResult) => Promise<void>
}

/** The request a run names: a declaration checked once, or a file resolved as `run_<skill>_script` does. */
function requestOf(call: ScriptOnceCall): ScriptRequest {
  return 'declared' in call
    ? { declaration: call.declared as SkillScript, args: call.args }
    : { undeclared: { script: call.path, args: call.argv } }
}

/**
 * The whole tier-3 pipeline for one call outside a manager, as `skillhost
 * run` makes it, as one outcome: a fresh skill copy of the skill's files
 * from `source` (the one maker, `SkillCopyMaker`), a session workspace
 * (`workspaceDir`, or a private folder) mounted at `/work`, and
 * `runScriptCall` with a declared script checked by `validateSkillScript` or
 * an undeclared file found and its argv checked by `undeclaredScriptCall`
 * (the rules of `run_<skill>_script`); `prepare` and `collect` see the
 * workspace before and after a run that ended. The session workspace and
 * the skill copy are disposed whatever happens; a caller's `workspaceDir`
 * itself stays. Throws only what is not skillhost's own refusal (a bug) and
 * what `prepare` and `collect` throw.
 */
export async function scriptOnceOutcome(
  config: SkillScriptConfig,
  input: RunScriptOnceInput,
): Promise<ScriptOutcome> {
  const runConfig = withWorkspaceDir(config, input.workspaceDir)
  const copy = new SkillCopyMaker(runConfig.workspace, input.source, input.ref)
  const workspace = new SessionWorkspaceSlot(runConfig)
  let open: SessionWorkspace | undefined
  try {
    const outcome = await runScriptCall(runConfig, {
      skill: input.ref.id,
      copy,
      request: requestOf(input.call),
      workspace: async () => {
        open = await workspace.open()
        await input.prepare?.(open)
        return open
      },
      ...(input.timeoutSeconds === undefined ? {} : { timeoutSeconds: input.timeoutSeconds }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    })
    if (outcome.ran && open !== undefined) await input.collect?.(open, outcome.result)
    return outcome
  } finally {
    await workspace.dispose()
    await copy.dispose()
  }
}

/**
 * `scriptOnceOutcome` unwrapped: the run's result, whatever its exit code
 * (a timed-out run only with `returnTimedOut`). Throws what those steps
 * throw (`SkillHostError`s such as `E_SKILL_SCRIPT_INVALID_ARGS`,
 * `E_SANDBOX_UNAVAILABLE`, `E_SKILL_WORKSPACE_FAILED`).
 */
export async function runScriptOnce(
  config: SkillScriptConfig,
  input: RunScriptOnceInput,
): Promise<ScriptRunResult> {
  return (await runScriptOnceRan(config, input)).result
}

/**
 * `runScriptOnce` with the script that ran (its interpreter among them), for
 * a caller that says more about the run than its result (`skillhost run`'s
 * missing-package hint).
 */
export async function runScriptOnceRan(
  config: SkillScriptConfig,
  input: RunScriptOnceInput,
): Promise<{ readonly result: ScriptRunResult; readonly script: ValidatedSkillScript }> {
  assertHostEnvIsolated(config)
  const outcome = await scriptOnceOutcome(config, input)
  const result = unwrapScriptOutcome(outcome, input.ref.id, config, input.returnTimedOut)
  // unwrapScriptOutcome returned: the call ran.
  return { result, script: (outcome as ScriptRan).script }
}
