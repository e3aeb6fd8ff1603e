import type { Tool } from '../../common/index.js'
import { escapeLine, SkillHostError, type SkillHostErrorCode } from '../../common/index.js'
import type { McpLogRecord } from './mcp-logging.js'

/** How one tool call ended, as the MCP server saw it. */
export type CallOutcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown }

/** The codes only a gate produces: its refusal and its absence, per tier. */
const REFUSED: ReadonlySet<SkillHostErrorCode> = new Set(['E_TOOL_DENIED', 'E_SKILL_SCRIPT_DENIED'])
const UNAVAILABLE: ReadonlySet<SkillHostErrorCode> = new Set([
  'E_TOOL_GATE_UNAVAILABLE',
  'E_SKILL_SCRIPT_GATE_UNAVAILABLE',
])

/** A skill id as a log shows it: one escaped line, bounded, whatever the source allowed. */
const safeId = (value: unknown): string | undefined =>
  typeof value === 'string' ? escapeLine(value.slice(0, 128)) : undefined

/** The names a record carries: the tool (a checked tool name) and its skill and tier when it has them. */
function subject(tool: Tool | undefined, name: string): Record<string, unknown> {
  const skill = safeId(tool?.meta.skill)
  const version = safeId(tool?.meta.skillVersion)
  const tier = typeof tool?.meta.tier === 'string' ? tool.meta.tier : undefined
  return {
    tool: tool?.name ?? escapeLine(name.slice(0, 80)),
    ...(tier && { tier }),
    ...(skill && { skill }),
    ...(version && { skillVersion: version }),
  }
}

/** What the script's end was, from the call's outcome; undefined when no script ran. */
function scriptEnd(outcome: CallOutcome): McpLogRecord['data'] | undefined {
  if (outcome.ok) return { ok: true }
  const err = outcome.error
  if (!SkillHostError.isInstance(err)) return undefined
  if (err.code === 'E_SKILL_SCRIPT_FAILED') {
    const code = (err.data as { exitCode?: unknown } | undefined)?.exitCode
    return { ok: false, ...(typeof code === 'number' && { exitCode: code }) }
  }
  if (err.code === 'E_SKILL_SCRIPT_TIMEOUT') return { ok: false, killed: 'deadline' }
  if (err.code === 'E_SKILL_WORKSPACE_FULL') return { ok: false, killed: 'workspace-full' }
  // Cancelled by the client (or the session closing), before or while it ran.
  if (err.code === 'E_ABORTED') return { ok: false, cancelled: true }
  return undefined
}

/**
 * The log records of one finished tool call, for `notifications/message`:
 * - `skillhost.gate`: a refusal (`warning`) or an unavailable gate (`error`),
 *   recognized by the codes only a gate produces; a completed call of a
 *   gated tool (`gated`) as `allowed` at `debug`.
 * - `skillhost.script`: how a script tool's run ended: `info` when it
 *   completed, `warning` with the exit code, why it was killed, or that it was
 *   cancelled.
 * Records carry names, codes and numbers only: never an error's message
 * (a script failure's message ends with the script's own output), a host
 * path or a stack.
 */
export function callLogRecords(
  tool: Tool | undefined,
  name: string,
  gated: boolean,
  outcome: CallOutcome,
): McpLogRecord[] {
  const who = subject(tool, name)
  const records: McpLogRecord[] = []
  const code = !outcome.ok && SkillHostError.isInstance(outcome.error) ? outcome.error.code : ''
  if (REFUSED.has(code as SkillHostErrorCode)) {
    records.push({
      level: 'warning',
      logger: 'skillhost.gate',
      data: { event: 'gate', decision: 'refused', ...who, code },
    })
  } else if (UNAVAILABLE.has(code as SkillHostErrorCode)) {
    records.push({
      level: 'error',
      logger: 'skillhost.gate',
      data: { event: 'gate', decision: 'unavailable', ...who, code },
    })
  } else if (outcome.ok && gated) {
    records.push({
      level: 'debug',
      logger: 'skillhost.gate',
      data: { event: 'gate', decision: 'allowed', ...who },
    })
  }
  const end = tool?.meta.tier === 'script' ? scriptEnd(outcome) : undefined
  if (end) {
    records.push({
      level: end.ok ? 'info' : 'warning',
      logger: 'skillhost.script',
      data: { event: 'script-exit', ...who, ...end },
    })
  }
  return records
}
