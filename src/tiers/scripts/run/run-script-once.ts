import type { SkillRef, SkillScriptDeclaration } from '../../../sources/types.js'
import { filesFromSource, type WorkspaceFileSource } from '../skill-copy/workspace-files.js'
import { undeclaredScriptCall, undeclaredScripts } from '../tool/undeclared-script-tool.js'
import { validateSkillScript } from '../tool/validate-skill-script.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import { SessionWorkspaceSlot, withWorkspaceDir } from '../workspace/session-workspace-slot.js'
import { runSkillScript } from './run-skill-script.js'

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

/**
 * The whole tier-3 pipeline for one call outside a manager, as `skillhost
 * run` makes it: the skill's files are copied from `source` into a fresh
 * skill copy (`config.workspace.materialize`); a declared script is checked
 * by `validateSkillScript`, an undeclared file found and its argv checked by
 * `undeclaredScriptCall` (the rules of `run_<skill>_script`); a session
 * workspace is opened (`workspaceDir`, or a private folder) and
 * `runSkillScript` runs the script in the sandbox with it as `/work`
 * (`prepare` and `collect` see the workspace before and after). The
 * session workspace and the skill copy are disposed whatever happens; a
 * caller's `workspaceDir` itself stays. Returns the run's result, whatever
 * its exit code. Throws what those steps throw (`SkillHostError`s such as
 * `E_SKILL_SCRIPT_INVALID_ARGS`, `E_SANDBOX_UNAVAILABLE`,
 * `E_SKILL_WORKSPACE_FAILED`).
 */
export async function runScriptOnce(
  config: SkillScriptConfig,
  input: RunScriptOnceInput,
): Promise<ScriptRunResult> {
  const { ref, call } = input
  const runConfig = withWorkspaceDir(config, input.workspaceDir)
  const files = await filesFromSource(input.source, ref)
  const root = await runConfig.workspace.materialize(ref, files)
  let workspace: SessionWorkspaceSlot | undefined
  try {
    let script: SkillScript
    let argv: string[] | undefined
    let args: Readonly<Record<string, unknown>> = {}
    if ('declared' in call) {
      validateSkillScript(ref.id, call.declared as SkillScript, runConfig.interpreters)
      script = call.declared as SkillScript
      args = call.args
    } else {
      const found = await undeclaredScripts(
        root,
        files.map((f) => f.path),
        runConfig.interpreters,
      )
      const resolved = undeclaredScriptCall(
        ref.id,
        { script: call.path, args: call.argv },
        found.runnable,
        found.denied,
        runConfig.translator.skillMount,
      )
      script = resolved.script
      argv = resolved.argv
    }
    workspace = new SessionWorkspaceSlot(runConfig)
    const open = await workspace.open()
    await input.prepare?.(open)
    const result = await runSkillScript(runConfig, {
      skill: ref.id,
      root,
      script,
      args,
      ...(argv === undefined ? {} : { argv }),
      workspace: open,
      ...(input.returnTimedOut === undefined ? {} : { returnTimedOut: input.returnTimedOut }),
      ...(input.timeoutSeconds === undefined ? {} : { timeoutSeconds: input.timeoutSeconds }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    })
    await input.collect?.(open, result)
    return result
  } finally {
    await workspace?.dispose()
    await config.workspace.dispose(root)
  }
}
