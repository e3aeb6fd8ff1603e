import { SkillHostError } from '../../../common/errors.js'
import { escapeControls } from '../../../common/escape-text.js'
import type { ToolGate } from '../../../common/gate.js'
import { MAX_DYNAMIC_COMMAND_LENGTH } from '../../../skill-model/dynamic-context.js'
import type { DynamicContextCall, DynamicContextOutcome, ForgeTarget } from '../../tier-forge.js'
import { runSkillScript } from '../run/run-skill-script.js'
import type { SkillScriptConfig } from '../types.js'
import type { SessionWorkspace } from '../workspace/session-workspace.js'
import type { LoadedCopy } from './loaded-copy.js'
import type { ValidatedSkillScript } from './validate-skill-script.js'

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
  /** The skill's materialized copy (with what its permission request was granted), made on first use. */
  readonly copy: () => Promise<LoadedCopy>
  readonly workspace?: () => Promise<SessionWorkspace>
}

/**
 * Runs `commands` in order as Claude Code renders dynamic context, each as
 * one contained script call of the skill: the gate is asked first (as
 * `run_<skill>_script` with `{ command }`), then `<shell> -c <command>` runs
 * under the derived policy with the conversation's workspace as cwd and the
 * load's arguments as `$0`, `$1`… and `$ARGUMENTS`, all within one
 * default deadline shared by the load's commands. The outcome is the output
 * (stdout; stderr and the exit code too when it failed), or why it did not
 * run. Rejects only with `E_ABORTED`.
 */
export async function runDynamicContext(
  deps: DynamicContextDeps,
  target: ForgeTarget,
  commands: readonly string[],
  call: DynamicContextCall,
): Promise<DynamicContextOutcome[]> {
  const off = offReason(deps.config)
  if (off !== undefined) return commands.map(() => ({ ran: false, reason: off }))
  const shell = SHELLS.find((s) => Object.hasOwn(deps.config.interpreters, s)) as string
  const script: ValidatedSkillScript = {
    name: 'dynamic-context',
    path: 'SKILL.md',
    description: 'a dynamic-context command of the skill body',
    interpreter: shell,
    interpreterArgv: deps.config.interpreters[shell] ?? [],
    params: [],
  }
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
    try {
      const workspace = await deps.workspace?.()
      const copy = await deps.copy()
      const result = await runSkillScript(deps.config, {
        skill: target.id,
        root: copy.root,
        ...(copy.granted === undefined ? {} : { granted: copy.granted }),
        script,
        args: {},
        timeoutSeconds: left,
        command: { line, params: call.params, env: call.env },
        signal: call.signal,
        returnTimedOut: true,
        ...(workspace === undefined ? {} : { workspace }),
        gate: {
          gate: deps.gate,
          ctx: call.ctx,
          tool: deps.toolName,
          skillVersion: target.version,
        },
      })
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
      out.push({ ran: true, text: shown(text) })
    } catch (err) {
      if (SkillHostError.is(err, 'E_ABORTED') || call.signal.aborted) throw err
      if (!SkillHostError.isInstance(err)) throw err
      out.push({ ran: false, reason: failedReason(err) })
    }
  }
  return out
}
