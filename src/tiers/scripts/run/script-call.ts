import type { SkillHostError } from '../../../common/errors.js'
import type { ToolGate } from '../../../common/gate.js'
import type { SpoolStore } from '../../../common/spool-store.js'
import type { TurnContext } from '../../../common/turn-context.js'
import type { SkillCopy, SkillCopySource } from '../skill-copy/skill-copy.js'
import type { ScriptRunResult, SkillScript } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import type { WorkspaceSource } from '../workspace/workspace-call.js'
import type { ReportedChange } from './spool-script-output.js'
import type { UndeclaredScripts } from './undeclared-script-call.js'
import type { ValidatedSkillScript } from './validate-skill-script.js'

/**
 * A shell command line run instead of a script file (a `` !`command` `` of
 * the skill's body): argv becomes `<shell> -c <line> ...params`, so `$0`,
 * `$1`… are the params (`$0` the shell's name when there are none) and
 * `$NAME` the `env` entries, expanded by the shell inside the sandbox and
 * never spliced into the line.
 */
export interface ShellCommand {
  readonly line: string
  readonly params: readonly string[]
  readonly env: Readonly<Record<string, string>>
}

/**
 * What a call asks to run, in the form its caller holds it; `runScriptCall`
 * turns each into one checked call, checking each rule once:
 * - `checked`: a script that already passed `validateSkillScript` (the
 *   forge's declared tools, a dynamic-context command's shell);
 * - `declaration`: a declaration no one checked yet (`skillhost run`, the
 *   public `runSkillScript`), validated here;
 * - `undeclared`: `run_<skill>_script`'s input (`{ script, args,
 *   timeout_seconds }`), resolved by `undeclaredScriptCall` against `found`
 *   (the load's scan) or a scan of the skill copy.
 * `argv` gives literal argv elements instead of rendering typed `args`;
 * `command` runs a shell line instead of the script file.
 */
export type ScriptRequest =
  | {
      readonly checked: ValidatedSkillScript
      readonly args: Readonly<Record<string, unknown>>
      readonly argv?: readonly string[]
      readonly command?: ShellCommand
    }
  | {
      readonly declaration: SkillScript
      readonly args: Readonly<Record<string, unknown>>
      readonly argv?: readonly string[]
      readonly command?: ShellCommand
    }
  | {
      readonly undeclared: Readonly<Record<string, unknown>>
      readonly found?: UndeclaredScripts
    }

/** Where a call's output and changed workspace files are spooled, with whose provenance. */
export interface ScriptSpool {
  readonly store: SpoolStore
  readonly tool: string
  readonly skillVersion: string
}

/** One script call, from the tool call (or command line) to its outcome. */
export interface ScriptCall {
  /** The skill id, for messages and provenance. */
  readonly skill: string
  /**
   * The skill copy the call runs from: the copy itself when its holder has
   * it (a script tool holds its load's copy), or its maker, which makes it
   * on first use and then reuses it.
   */
  readonly copy: SkillCopy | SkillCopySource
  readonly request: ScriptRequest
  /**
   * The conversation's workspace: mounted read-write at `/work` and the
   * call's cwd; the files the call creates, changes or deletes are reported.
   * Without it the cwd is the per-call scratch. A source with `open` (the
   * manager's slot, `runScriptOnce`'s folder) is opened once the call is
   * resolved, allowed and its interpreter ready (nothing is copied in for a
   * call that cannot run).
   */
  readonly workspace?: WorkspaceSource
  /** Overrides the request's `timeout_seconds`; defaults to `defaultTimeoutSeconds`. */
  readonly timeoutSeconds?: number
  /**
   * True when the tool's input schema already held the request's arguments
   * to their rules (the script tools: `timeoutProperty` bounds
   * `timeout_seconds`), so the deadline's range is not checked twice.
   */
  readonly argsChecked?: boolean
  readonly signal?: AbortSignal
  /**
   * When set, the gate is asked before anything runs (a refusal is
   * `E_SKILL_SCRIPT_DENIED`, a missing or broken gate
   * `E_SKILL_SCRIPT_GATE_UNAVAILABLE`). Omit it when the tool envelope
   * already gated the call.
   */
  readonly gate?: {
    readonly gate: ToolGate | undefined
    readonly ctx: TurnContext
    readonly tool: string
    readonly skillVersion?: string
  }
  /** When set, the output and the changed workspace files are spooled (untrusted). */
  readonly spool?: ScriptSpool
}

/** Where a call's output went: its retrievable id and the changed files' copies. */
export interface ScriptSpooled {
  /** The retrievable id of the whole output. */
  readonly outputId: string
  readonly changes: readonly ReportedChange[]
}

/** A script call that ran to an end, whatever its exit code, at the deadline included. */
export interface ScriptRan {
  readonly ran: true
  readonly script: ValidatedSkillScript
  readonly timeoutSeconds: number
  readonly result: ScriptRunResult
  /** The workspace the call ran with, when it had one. */
  readonly workspace?: SessionWorkspace
  /** Present when the call asked for spooling. */
  readonly spooled?: ScriptSpooled
}

/** A script call that did not run or could not finish, and skillhost's refusal saying why. */
export interface ScriptRefused {
  readonly ran: false
  readonly error: SkillHostError
}

/**
 * What became of one script call, the one value every face renders (the
 * script tools, dynamic context, `skillhost run`, `runSkillScript`).
 */
export type ScriptOutcome = ScriptRan | ScriptRefused

/** The outcome of a call that asked for spooling: a run always names its spooled output. */
export type SpooledScriptOutcome = (ScriptRan & { readonly spooled: ScriptSpooled }) | ScriptRefused
