import { SkillHostError } from '../../../common/errors.js'
import type { ToolGate } from '../../../common/gate.js'
import type { TurnContext } from '../../../common/turn-context.js'
import { assertHostEnvIsolated } from '../policy/host-env-isolated.js'
import type { PolicyGrant } from '../policy/policy.js'
import type { ScriptRunResult, SkillScript, SkillScriptConfig } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import { runScriptCall } from './run-script-call.js'
import type { ScriptOutcome, ShellCommand } from './script-call.js'

/** One script call. */
export interface RunSkillScriptInput {
  /** The skill id, for messages. */
  readonly skill: string
  /** The skill copy's root: what `workspace.materialize` returned. */
  readonly root: string
  readonly script: SkillScript
  /** The tool arguments; a `timeout_seconds` entry is taken as the deadline. */
  readonly args: Readonly<Record<string, unknown>>
  /**
   * Literal argv elements after the script path, instead of rendering typed
   * `args` (an undeclared script); each was checked by `literalArgvProblem`.
   */
  readonly argv?: readonly string[]
  /**
   * A shell command line to run instead of the script file (see
   * `ShellCommand`). `script` names the shell; its `path` is the file the
   * line came from (SKILL.md).
   */
  readonly command?: ShellCommand
  readonly signal?: AbortSignal
  /**
   * The conversation's workspace: mounted read-write at the translator's
   * `workspaceMount` (`/work`) and the call's cwd; the files the call
   * creates, changes or deletes are reported in `changes`. Without it the
   * cwd is the per-call scratch.
   */
  readonly workspace?: SessionWorkspace
  /** Overrides `args.timeout_seconds`; defaults to `defaultTimeoutSeconds`. */
  readonly timeoutSeconds?: number
  /**
   * Return a timed-out run (with `timedOut: true` and the output captured
   * until the kill) instead of throwing `E_SKILL_SCRIPT_TIMEOUT`, so the
   * caller can keep the partial output before reporting the timeout.
   */
  readonly returnTimedOut?: boolean
  /**
   * The skill's approved permission request (`PermissionGrants.judge`):
   * absolute host paths added to the derived policy, each bound from a
   * descriptor opened without following symlinks (`openGrantedPaths`).
   */
  readonly granted?: PolicyGrant
  /**
   * When set, the gate is asked before anything runs: a refusal is
   * `E_SKILL_SCRIPT_DENIED`, a missing or broken gate
   * `E_SKILL_SCRIPT_GATE_UNAVAILABLE`. Omit it when the caller's tool wrapper
   * already gated the call.
   */
  readonly gate?: {
    readonly gate: ToolGate | undefined
    readonly ctx: TurnContext
    readonly tool: string
    readonly skillVersion?: string
  }
}

/**
 * The outcome as `runSkillScript` gives it: the run's
 * result, whatever its exit code; the refusal thrown; a run killed at its
 * deadline thrown as `E_SKILL_SCRIPT_TIMEOUT` unless `returnTimedOut`.
 */
export function unwrapScriptOutcome(
  outcome: ScriptOutcome,
  skill: string,
  config: SkillScriptConfig,
  returnTimedOut: boolean | undefined,
): ScriptRunResult {
  if (!outcome.ran) throw outcome.error
  const { result, script, timeoutSeconds } = outcome
  if (result.timedOut && returnTimedOut !== true) {
    throw new SkillHostError(
      'E_SKILL_SCRIPT_TIMEOUT',
      `Script '${script.name}' of skill '${skill}' ran past ${timeoutSeconds}s and was killed; raise timeout_seconds (max ${config.maxTimeoutSeconds}) or make it faster.`,
      { data: { timeoutSeconds, bytes: result.bytes } },
    )
  }
  return result
}

/**
 * Runs one script of an existing skill copy (`root`) under the sandbox:
 * `runScriptCall` with the declaration checked (`validateSkillScript`),
 * its arguments and deadline checked, the gate asked when `gate` is set,
 * the per-call policy derived (the skill copy, interpreter paths, a fresh
 * scratch, the session workspace, the `granted` paths; no network) and
 * kept within the session policy, and argv run without a shell and with no
 * host environment. Returns the result of any completed run, whatever its
 * exit code; output text has host paths redacted. Throws
 * `E_INVALID_SKILLS_CONFIG` (`hostEnvIsolated` not true),
 * `E_SKILL_SOURCE_PATH_REJECTED`, `E_SKILL_MANIFEST_INVALID`,
 * `E_SKILL_SCRIPT_INVALID_ARGS`, `E_SKILL_SCRIPT_POLICY_WIDENED`,
 * `E_SKILL_WORKSPACE_FAILED`, `E_SANDBOX_UNAVAILABLE`,
 * `E_SKILL_SCRIPT_TIMEOUT` or `E_ABORTED` (an abort is never reported as
 * another failure).
 */
export async function runSkillScript(
  config: SkillScriptConfig,
  input: RunSkillScriptInput,
): Promise<ScriptRunResult> {
  assertHostEnvIsolated(config)
  const { gate } = input
  const outcome = await runScriptCall(config, {
    skill: input.skill,
    // A copy someone else made and keeps: its files are not listed, so none are sized.
    copy: {
      root: input.root,
      paths: [],
      fileBytes: [],
      ...(input.granted === undefined ? {} : { granted: input.granted }),
    },
    request: {
      declaration: input.script,
      args: input.args,
      ...(input.argv === undefined ? {} : { argv: input.argv }),
      ...(input.command === undefined ? {} : { command: input.command }),
    },
    ...(input.workspace === undefined ? {} : { workspace: input.workspace }),
    ...(input.timeoutSeconds === undefined ? {} : { timeoutSeconds: input.timeoutSeconds }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(gate === undefined ? {} : { gate }),
  })
  return unwrapScriptOutcome(outcome, input.skill, config, input.returnTimedOut)
}
