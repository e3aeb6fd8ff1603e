import type { SkillHostMetrics, Tool, ToolCallKind } from '../../common/index.js'
import { isReservedReaderName } from '../../common/internal.js'
import { LIFECYCLE_TOOL_NAMES } from '../../manager/index.js'
import type { CallOutcome } from './call-log-records.js'

const SKILL_TIERS: ReadonlySet<string> = new Set(['module', 'isolated', 'script'])
const LIFECYCLE: ReadonlySet<string> = new Set(LIFECYCLE_TOOL_NAMES)
/** The session-workspace tools' names (tier 3's `WORKSPACE_TOOL`, not imported: the MCP adapter loads no tier). */
const WORKSPACE: ReadonlySet<string> = new Set([
  'workspace_list',
  'workspace_read',
  'workspace_write',
])

/**
 * The kind a tool call is counted under (`skillhost_tool_calls_total`): a
 * skill tool's tier from its host-set `meta.tier`, else the host's own
 * families by their reserved names; a tool not offered is `unknown`. A fixed
 * vocabulary: never the tool's name.
 */
export function toolCallKind(tool: Tool | undefined, lifecycle: ReadonlySet<Tool>): ToolCallKind {
  if (tool === undefined) return 'unknown'
  const tier = tool.meta.tier
  if (typeof tier === 'string' && SKILL_TIERS.has(tier)) return tier as ToolCallKind
  if (lifecycle.has(tool) || LIFECYCLE.has(tool.name)) return 'lifecycle'
  if (WORKSPACE.has(tool.name)) return 'workspace'
  if (isReservedReaderName(tool.name)) return 'reader'
  return 'host'
}

/**
 * Counts one finished tool call into `metrics` (when given): its kind, its
 * outcome code, the skill id its host-set `meta.skill` names, and how long
 * it took since `started` (`performance.now()`).
 */
export function countToolCall(
  metrics: SkillHostMetrics | undefined,
  call: {
    readonly tool: Tool | undefined
    readonly lifecycle: ReadonlySet<Tool>
    readonly outcome: CallOutcome
    readonly started: number
  },
): void {
  if (!metrics) return
  const { tool, outcome } = call
  metrics.toolCall({
    kind: toolCallKind(tool, call.lifecycle),
    error: outcome.ok ? undefined : outcome.error,
    skill: typeof tool?.meta.skill === 'string' ? tool.meta.skill : undefined,
    seconds: (performance.now() - call.started) / 1000,
  })
}
