import { type Tool as AiTool, tool as aiTool, type JSONSchema7, jsonSchema } from 'ai'
import type { Tool, ToolResult, TurnContext } from '../../common/index.js'
import { Media, renderError, SkillHostError } from '../../common/index.js'
import { collectWorkspaceFiles } from '../../common/internal.js'
import type { ManagerWorkspace } from '../../manager/internal.js'
import { type SkillToolWorkspaceFile, workspaceFileParts } from './workspace-file-parts.js'

/** What a tool's `toModelOutput` returns (the AI SDK does not export this type by name). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<AiTool<unknown, unknown>['toModelOutput']>>>

/** One binary part of a tool result, base64-encoded so it survives message serialization. */
export interface SkillToolBinaryPart {
  readonly mediaType: string
  readonly data: string
  readonly filename?: string
}

/**
 * A tool's output with the session-workspace files the call read or wrote
 * (`workspace_read`, `workspace_write`, a script's outputs): the host takes
 * the files from `workspaceFiles`; the model sees `output` alone, which
 * already names them.
 */
export interface SkillToolOutputWithFiles {
  readonly output: string | readonly SkillToolBinaryPart[]
  readonly workspaceFiles: readonly SkillToolWorkspaceFile[]
  /** Files the call touched beyond the 100 listed (`manager.workspace.list()` has them all). */
  readonly moreWorkspaceFiles?: number
}

/**
 * What an adapted tool's `execute` resolves to: the text itself, binary
 * parts (from `Media` or raw bytes), or either with the workspace files the
 * call read or wrote. Plain JSON, so it can be stored in messages and
 * replayed; `toModelOutput` turns it into provider content.
 */
export type SkillToolOutput = string | readonly SkillToolBinaryPart[] | SkillToolOutputWithFiles

/**
 * The error an adapted tool throws. Its `message` is exactly `renderError`'s
 * model-safe `CODE: message` text, which the AI SDK sends back to the model as
 * the tool error. The original error is kept as `cause` for the host only.
 * A call that failed after reading or writing session-workspace files (a
 * script that wrote its output, then exited non-zero) carries them as a
 * successful call does (`workspaceFiles`, `moreWorkspaceFiles`), for the
 * host: the model sees the message alone.
 */
export class SkillToolCallError extends Error {
  override readonly name = 'SkillToolCallError'
  /** The workspace files the failed call read or wrote; empty when none (or no workspace). */
  readonly workspaceFiles: readonly SkillToolWorkspaceFile[]
  /** Files the call touched beyond the 100 listed. */
  readonly moreWorkspaceFiles?: number
  constructor(cause: unknown, files?: Omit<SkillToolOutputWithFiles, 'output'>) {
    super(renderError(cause), { cause })
    this.workspaceFiles = files?.workspaceFiles ?? []
    if (files?.moreWorkspaceFiles !== undefined) this.moreWorkspaceFiles = files.moreWorkspaceFiles
  }
}

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

/** Converts a skillhost tool result into the adapter's serializable output. */
export function toSkillToolOutput(result: ToolResult): SkillToolOutputWithFiles['output'] {
  if (typeof result === 'string') return result
  if (result instanceof Uint8Array)
    return [{ mediaType: 'application/octet-stream', data: base64(result) }]
  const items = Array.isArray(result) ? result : [result]
  return items.map((m) =>
    Media.isInstance(m)
      ? {
          mediaType: m.mimeType,
          data: base64(m.data),
          ...(m.name === undefined ? {} : { filename: m.name }),
        }
      : { mediaType: 'application/octet-stream', data: '' },
  )
}

/** Maps the adapter's output to provider content: text stays text; images and files become content parts. */
export function skillToolModelOutput(output: SkillToolOutput): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output }
  // The files are the host's to take; the tool's own output names them for the model.
  if (!Array.isArray(output))
    return skillToolModelOutput((output as SkillToolOutputWithFiles).output)
  return {
    type: 'content',
    value: output.map((part) =>
      part.mediaType.startsWith('image/')
        ? { type: 'image-data' as const, data: part.data, mediaType: part.mediaType }
        : {
            type: 'file-data' as const,
            data: part.data,
            mediaType: part.mediaType,
            ...(part.filename === undefined ? {} : { filename: part.filename }),
          },
    ),
  }
}

/**
 * Builds the AI SDK tool for the skillhost tool currently registered in `ctx`
 * under `name`. `execute` resolves the tool by name at call time, so a call
 * always reaches the live registration: a tool unloaded since the step began
 * fails with `E_TOOL_NOT_FOUND`, a swapped one runs its new version. Every
 * failure is rethrown as a `SkillToolCallError` carrying `renderError` text,
 * never a host path or stack. Arguments are validated by the skillhost tool
 * itself (`E_TOOL_INVALID_ARGS`), not by the AI SDK.
 */
export function toAiSdkTool(
  definition: Tool,
  ctx: TurnContext,
  workspace?: ManagerWorkspace,
): AiTool<unknown, SkillToolOutput> {
  const name = definition.name
  return aiTool<unknown, SkillToolOutput>({
    description: definition.description,
    inputSchema: jsonSchema<unknown>(definition.jsonSchema as JSONSchema7),
    execute: async (input) => {
      let files: Omit<SkillToolOutputWithFiles, 'output'> | undefined
      try {
        const live = ctx.tools.get(name)
        if (!live) {
          throw new SkillHostError(
            'E_TOOL_NOT_FOUND',
            `Tool '${name}' is no longer offered here (its skill was unloaded).`,
            {
              data: { tool: name },
            },
          )
        }
        const run = await collectWorkspaceFiles(() => live.execute(input ?? {}, ctx))
        // The same files whether the call succeeded or failed (MCP links them either way).
        files = {
          workspaceFiles: workspace ? await workspaceFileParts(workspace, run) : [],
          ...(run.dropped > 0 ? { moreWorkspaceFiles: run.dropped } : {}),
        }
        if (!run.outcome.ok) throw run.outcome.error
        const output = toSkillToolOutput(run.outcome.value)
        if (files.workspaceFiles.length === 0 && run.dropped === 0) return output
        return { output, ...files }
      } catch (err) {
        throw new SkillToolCallError(err, files)
      }
    },
    toModelOutput: ({ output }) => skillToolModelOutput(output),
  })
}
