import type { SkillRef, SkillScriptDeclaration } from '../../../sources/types.js'
import { assertHostEnvIsolated } from '../policy/host-env-isolated.js'
import { SkillCopyMaker } from '../skill-copy/skill-copy.js'
import type { WorkspaceFileSource } from '../skill-copy/skill-copy-files.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import { SessionWorkspaceSlot, withWorkspaceDir } from '../workspace/session-workspace-slot.js'
import { runScriptCall } from './run-script-call.js'
import type { ScriptOutcome, ScriptRequest } from './script-call.js'

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
 * run` makes it, as one outcome for its caller to render (the run's result,
 * timed out or not, or skillhost's refusal): a fresh skill copy of the
 * skill's files from `source` (the one maker, `SkillCopyMaker`), a session
 * workspace (`workspaceDir`, or a private folder) mounted at `/work`, and
 * `runScriptCall` with a declared script checked by `validateSkillScript` or
 * an undeclared file found and its argv checked by `undeclaredScriptCall`
 * (the rules of `run_<skill>_script`); `prepare` and `collect` see the
 * workspace before and after a run that ended. The session workspace and
 * the skill copy are disposed whatever happens; a caller's `workspaceDir`
 * itself stays. Throws `E_INVALID_SKILLS_CONFIG` for a configuration that
 * lets scripts see the host's environment (before anything is made), what
 * is not skillhost's own refusal (a bug) and what `prepare` and `collect`
 * throw.
 */
export async function runScriptOnce(
  config: SkillScriptConfig,
  input: RunScriptOnceInput,
): Promise<ScriptOutcome> {
  assertHostEnvIsolated(config)
  const runConfig = withWorkspaceDir(config, input.workspaceDir)
  const copy = new SkillCopyMaker(runConfig.workspace, input.source, input.ref)
  const workspace = new SessionWorkspaceSlot(runConfig)
  let open: SessionWorkspace | undefined
  try {
    const outcome = await runScriptCall(runConfig, {
      skill: input.ref.id,
      copy,
      request: requestOf(input.call),
      workspace: {
        open: async () => {
          open = await workspace.open()
          await input.prepare?.(open)
          return open
        },
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
