import { SkillHostError } from '../../../common/errors.js'
import { escapeControls } from '../../../common/escape-text.js'
import type { ToolGate } from '../../../common/gate.js'
import { MAX_DYNAMIC_COMMAND_LENGTH } from '../../../skill-model/dynamic-context.js'
import type { DynamicContextCall, DynamicContextOutcome, ForgeTarget } from '../../tier-forge.js'
import { runScriptCall } from '../run/run-script-call.js'
import type { ScriptOutcome } from '../run/script-call.js'
import type { ValidatedSkillScript } from '../run/validate-skill-script.js'
import type { SkillCopySource } from '../skill-copy/skill-copy.js'
import type { SkillScriptConfig } from '../types.js'
import type { WorkspaceOpener } from '../workspace/workspace-call.js'

/** Most characters of one command's output kept in the body; the rest is cut with a note. */
export const MAX_DYNAMIC_OUTPUT_LENGTH = 8_192

/** The shells a command may run with, in the order tried: Claude Code runs bash. */
const SHELLS = ['bash', 'sh'] as const

/** Why a whole body's commands do not run on this host, or undefined when they may. */
function offReason(config: SkillScriptConfig): string | undefined {
  if (config.dynamicContext !== 'run') return 'dynamic context is off on this host'
  if (!SHELLS.some((s) => Object.hasOwn(config.interpreters, s)))
    return 'this host allows no shell for scripts'
  return undefined
}

/** What a failed command says in place of its output: the code, never a host path. */
function failedReason(err: SkillHostError): string {
  switch (err.code) {
    case 'E_SKILL_SCRIPT_DENIED':
      return "the host's gate refused it"
    case 'E_SKILL_SCRIPT_GATE_UNAVAILABLE':
      return "the host's gate is unavailable"
    default:
      return `it could not run (${err.code})`
  }
}

/** A command's output as the body shows it: control characters escaped, cut at the bound. */
function shown(text: string): string {
  const trimmed = text.replace(/\s+$/, '')
  const cut =
    trimmed.length > MAX_DYNAMIC_OUTPUT_LENGTH
      ? `${trimmed.slice(0, MAX_DYNAMIC_OUTPUT_LENGTH)}\n[… ${trimmed.length - MAX_DYNAMIC_OUTPUT_LENGTH} more characters cut]`
      : trimmed
  return escapeControls(cut)
}

/** What the tier needs to run a body's commands for one skill. */
export interface DynamicContextDeps {
  readonly config: SkillScriptConfig
  readonly gate: ToolGate
  /** The tool name the gate is asked under: the skill's `run_<skill>_script`. */
  readonly toolName: string
  /** The skill copy (with what its permission request was granted), made on first use. */
  readonly copy: SkillCopySource
  readonly workspace?: WorkspaceOpener
}

/** A command's outcome as the body shows it: its output, or why it did not run. */
function renderCommandOutcome(outcome: ScriptOutcome, signal: AbortSignal): DynamicContextOutcome {
  if (!outcome.ran) {
    if (SkillHostError.is(outcome.error, 'E_ABORTED') || signal.aborted) throw outcome.error
    return { ran: false, reason: failedReason(outcome.error) }
  }
  const { result } = outcome
  const failed = result.timedOut || result.exitCode !== 0
  const ended = result.timedOut
    ? '[killed at the deadline]'
    : result.exitCode === null
      ? `[killed by ${String(result.signal)}]`
      : `[exit code ${result.exitCode}]`
  const text = failed
    ? [result.stdout.replace(/\s+$/, ''), result.stderr.replace(/\s+$/, ''), ended]
        .filter(Boolean)
        .join('\n')
    : result.stdout
  return { ran: true, text: shown(text) }
}

/** The shell every command of this config runs with, as a checked script of the skill. */
function shellScript(config: SkillScriptConfig): ValidatedSkillScript {
  const shell = SHELLS.find((s) => Object.hasOwn(config.interpreters, s)) as string
  return {
    name: 'dynamic-context',
    path: 'SKILL.md',
    description: 'a dynamic-context command of the skill body',
    interpreter: shell,
    interpreterArgv: config.interpreters[shell] ?? [],
    params: [],
  }
}

/**
 * Runs `commands` in order as Claude Code renders dynamic context, each as
 * one contained script call of the skill owned by `runScriptCall`: the gate
 * is asked first (as `run_<skill>_script` with `{ command }`), then
 * `<shell> -c <command>` runs under the derived policy with the
 * conversation's workspace as cwd and the load's arguments as `$0`, `$1`…
 * and `$ARGUMENTS`, all within one default deadline shared by the load's
 * commands. The outcome is the output (stdout; stderr and the exit code too
 * when it failed), or why it did not run. Rejects only with `E_ABORTED`.
 */
export async function runDynamicContext(
  deps: DynamicContextDeps,
  target: ForgeTarget,
  commands: readonly string[],
  call: DynamicContextCall,
): Promise<DynamicContextOutcome[]> {
  const off = offReason(deps.config)
  if (off !== undefined) return commands.map(() => ({ ran: false, reason: off }))
  const script = shellScript(deps.config)
  const out: DynamicContextOutcome[] = []
  // One deadline for all of a load's commands, so a body cannot hold a load
  // for 16 deadlines: each runs with what is left of the default deadline.
  const deadline = Date.now() + deps.config.defaultTimeoutSeconds * 1000
  for (const line of commands) {
    const left = Math.floor((deadline - Date.now()) / 1000)
    if (left < 1) {
      out.push({ ran: false, reason: "the load's time for dynamic context ran out" })
      continue
    }
    if (line.length > MAX_DYNAMIC_COMMAND_LENGTH) {
      out.push({
        ran: false,
        reason: `the command is longer than ${MAX_DYNAMIC_COMMAND_LENGTH} characters`,
      })
      continue
    }
    const outcome = await runScriptCall(deps.config, {
      skill: target.id,
      copy: deps.copy,
      request: { checked: script, args: {}, command: { line, params: call.params, env: call.env } },
      ...(deps.workspace === undefined ? {} : { workspace: deps.workspace }),
      timeoutSeconds: left,
      signal: call.signal,
      gate: { gate: deps.gate, ctx: call.ctx, tool: deps.toolName, skillVersion: target.version },
    })
    out.push(renderCommandOutcome(outcome, call.signal))
  }
  return out
}
