import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import { context } from '@opentelemetry/api'
import type { Tool, ToolResult, TurnContext } from '../../common/index.js'
import { quoteName, renderError, SkillHostError } from '../../common/index.js'
import { collectWorkspaceFiles, type NotedWorkspaceFiles } from '../../common/internal.js'
import { LIFECYCLE_TOOL } from '../../manager/index.js'
import { type CallOutcome, callLogRecords } from './call-log-records.js'
import { countToolCall } from './count-tool-call.js'
import type { SkillMcpServerOptions } from './create-skill-mcp-server.js'
import type { serveMcpLogging } from './mcp-logging.js'
import { trackProgress } from './progress.js'
import { invalidParams } from './skill-server.js'
import { toCallToolError, toCallToolResult } from './to-call-tool-result.js'
import { requestTraceContext } from './trace-context.js'
import { withWorkspaceFiles } from './workspace-call-content.js'
import type { WorkspaceResources } from './workspace-resources.js'

/** What the SDK hands a request handler beside the request. */
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** A call's outcome with the workspace files it touched. */
type CollectedCall = Awaited<ReturnType<typeof collectWorkspaceFiles<ToolResult>>>

/** What every `tools/call` of one session answers from. */
interface ToolCallScope {
  readonly ctx: TurnContext
  readonly lifecycleSet: ReadonlySet<Tool>
  readonly options: SkillMcpServerOptions
  readonly log: ReturnType<typeof serveMcpLogging>
  readonly workspace: WorkspaceResources | undefined
}

const MUTATIONS: ReadonlySet<string> = new Set([
  LIFECYCLE_TOOL.load,
  LIFECYCLE_TOOL.unload,
  LIFECYCLE_TOOL.refresh,
])

/** Puts a notice, when there is one, first in a result's content. */
function withNotice(result: CallToolResult, notice: string | undefined): CallToolResult {
  return notice === undefined
    ? result
    : { ...result, content: [{ type: 'text', text: notice }, ...result.content] }
}

/** The session context with an abort signal that also fires when this request is cancelled. */
function withRequestSignal(ctx: TurnContext, signal: AbortSignal): TurnContext {
  return Object.freeze({ ...ctx, abortSignal: AbortSignal.any([ctx.abortSignal, signal]) })
}

/** The model-safe refusal of a name no tool of this session has (quoted, bounded). */
function unknownTool(name: string): SkillHostError {
  return new SkillHostError(
    'E_TOOL_NOT_FOUND',
    `Unknown tool ${quoteName(name.slice(0, 80))}: no tool of that name is offered here; list tools again.`,
    { data: { tool: name.slice(0, 80) } },
  )
}

/**
 * Answers `tools/call` from the session context: the tool's result or its
 * model-safe error, then (on the same stream, before the response) the last
 * progress report and the call's log records. A client's trace context
 * (`_meta.traceparent` or the HTTP header) parents the call's spans.
 */
export function serveToolCalls(server: Server, scope: ToolCallScope): void {
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    context.with(requestTraceContext(request.params._meta, extra.requestInfo?.headers), () =>
      answerToolCall(scope, request, extra),
    ),
  )
}

/** Runs a known tool as the session's call: cancellable, reporting progress, counted, its files noted. */
async function runKnownTool(
  scope: ToolCallScope,
  tool: Tool,
  request: CallToolRequest,
  extra: Extra,
  progress: ReturnType<typeof trackProgress>,
): Promise<CollectedCall> {
  const { ctx, lifecycleSet, options } = scope
  // Lifecycle tools project into the session context itself; every other
  // tool gets a view of it whose signal also fires when the client cancels
  // this request (notifications/cancelled), so a guest or script is killed.
  const callCtx = lifecycleSet.has(tool) ? ctx : withRequestSignal(ctx, extra.signal)
  // What the call awaits may say what it is doing (an environment build): progress reports it.
  // Run as the metrics' call: what it does deep down (a sandbox start, a build) is counted there.
  const execute = () => progress.run(() => tool.execute(request.params.arguments ?? {}, callCtx))
  const { metrics } = options
  const run = metrics ? () => metrics.run(execute) : execute
  const around = options.aroundLifecycleMutation
  const name = request.params.name
  // The workspace files the call read or wrote go out as resource links (docs/mcp.md).
  return collectWorkspaceFiles(() =>
    around && lifecycleSet.has(tool) && MUTATIONS.has(name) ? around(name, run) : run(),
  )
}

async function answerToolCall(
  scope: ToolCallScope,
  request: CallToolRequest,
  extra: Extra,
): Promise<CallToolResult> {
  const { options, workspace } = scope
  const started = performance.now()
  const name = request.params.name
  const tool = scope.ctx.tools.get(name)
  // Only a call that runs reports progress; an unknown tool fails at once.
  const progress = trackProgress(
    tool && request.params._meta?.progressToken,
    extra.sendNotification,
  )
  let outcome: CallOutcome = { ok: true }
  let noted: NotedWorkspaceFiles | undefined
  const withFiles = (result: CallToolResult) => withWorkspaceFiles(result, workspace, noted)
  try {
    if (!tool) throw unknownTool(name)
    const collected = await runKnownTool(scope, tool, request, extra, progress)
    noted = collected
    // Stored before the result goes out; a store that failed is the call's outcome.
    // Counted as the call's (`workspace_bytes_total{store="postgres"}`).
    const after = options.afterToolCall
    if (after) await (options.metrics ? options.metrics.run(after) : after())
    if (!collected.outcome.ok) throw collected.outcome.error
    const value = collected.outcome.value
    const result = await withFiles(withNotice(toCallToolResult(value), options.takeNotice?.()))
    options.onToolCall?.({ tool: name, ok: true })
    return result
  } catch (err) {
    outcome = { ok: false, error: err }
    // An unknown tool is a protocol error (MCP › Tools › Error Handling): -32602, not a tool result.
    if (!tool) {
      const text = renderError(err)
      options.onToolCall?.({ tool: name, ok: false, error: text, cause: err })
      throw invalidParams(text)
    }
    const result = await withFiles(withNotice(toCallToolError(err), options.takeNotice?.()))
    const first = result.content[0]
    options.onToolCall?.({
      tool: name,
      ok: false,
      error: first?.type === 'text' ? first.text : '',
      cause: err,
    })
    return result
  } finally {
    // Both before the response, on its stream: the last progress report, then the log records.
    await progress.finish(outcome.ok)
    const gated = tool !== undefined && (scope.lifecycleSet.has(tool) || 'tier' in tool.meta)
    const records = callLogRecords(tool, name, gated, outcome)
    await scope.log.emit(extra.sendNotification, records, request)
    countToolCall(options.metrics, { tool, lifecycle: scope.lifecycleSet, outcome, started })
  }
}
