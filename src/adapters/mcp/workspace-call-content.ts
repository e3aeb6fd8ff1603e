import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'
import { escapeLine } from '../../common/escape-text.js'
import { mediaTypeByName } from '../../common/file-type.js'
import type { NotedWorkspaceFiles } from '../../common/workspace-files-noted.js'
import type { WorkspaceResources } from './workspace-resources.js'

/** Largest workspace file a tool result embeds besides its `resource_link`. */
export const WORKSPACE_EMBED_MAX_BYTES = 64 * 1024
/** Most bytes one tool result embeds in all; past it, files are linked only. */
export const WORKSPACE_EMBED_TOTAL_BYTES = 1024 * 1024

/**
 * The MCP content for the workspace files one call read or wrote: for each,
 * a `resource_link` to its per-session workspace resource (with its size and
 * media type) and, when it is at most `WORKSPACE_EMBED_MAX_BYTES` and the
 * result's embedding budget allows, the file itself as an embedded resource,
 * read whole through the workspace's descriptors. A deleted file gets no
 * link; a file that vanished or grew since the call is linked only.
 */
export async function workspaceCallContent(
  resources: WorkspaceResources,
  noted: NotedWorkspaceFiles,
): Promise<ContentBlock[]> {
  const out: ContentBlock[] = []
  let budget = WORKSPACE_EMBED_TOTAL_BYTES
  for (const note of noted.files) {
    if (note.change === 'deleted') continue
    const uri = resources.uri(note.path)
    const embed = note.size <= WORKSPACE_EMBED_MAX_BYTES && note.size <= budget
    const file = embed ? await resources.file(note.path).catch(() => undefined) : undefined
    const fits =
      file !== undefined && file.bytes.byteLength <= Math.min(budget, WORKSPACE_EMBED_MAX_BYTES)
    const mimeType = file?.mimeType ?? mediaTypeByName(note.path)
    out.push({
      type: 'resource_link',
      uri,
      name: note.path,
      title: `/work/${note.path}`,
      size: fits ? file.bytes.byteLength : note.size,
      ...(mimeType ? { mimeType } : {}),
    })
    if (!fits) continue
    budget -= file.bytes.byteLength
    out.push({ type: 'resource', resource: resources.contentsOf(file) })
  }
  if (noted.dropped > 0) {
    const more = `${noted.dropped} more workspace file(s) not linked here; resources/list lists them all.`
    out.push({ type: 'text', text: escapeLine(more) })
  }
  return out
}

/**
 * `result` with the call's workspace files appended (`workspaceCallContent`);
 * `changed` runs when the call wrote or deleted any, so the session can send
 * `notifications/resources/list_changed`.
 */
export async function withWorkspaceFiles(
  result: CallToolResult,
  resources: WorkspaceResources | undefined,
  noted: NotedWorkspaceFiles | undefined,
  changed: () => void,
): Promise<CallToolResult> {
  if (resources === undefined || noted === undefined) return result
  if (noted.dropped > 0 || noted.files.some((f) => f.change !== 'read')) changed()
  const blocks = await workspaceCallContent(resources, noted)
  return blocks.length === 0 ? result : { ...result, content: [...result.content, ...blocks] }
}
