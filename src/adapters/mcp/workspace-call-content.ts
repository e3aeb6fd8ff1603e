import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'
import { escapeLine } from '../../common/index.js'
import type { NotedWorkspaceFiles } from '../../common/internal.js'
import { filesOut, mediaTypeByName } from '../../common/internal.js'
import type { WorkspaceResources } from './workspace-resources.js'

/**
 * The MCP content for the workspace files one call read or wrote
 * (`filesOut`): for each, a `resource_link` to its per-session workspace
 * resource (with its size and media type) and, when the file is carried, an
 * embedded resource with its exact bytes. A deleted file gets no link.
 */
export async function workspaceCallContent(
  resources: WorkspaceResources,
  noted: NotedWorkspaceFiles,
): Promise<ContentBlock[]> {
  const out: ContentBlock[] = []
  for (const { note, file } of await filesOut(noted, (path) => resources.file(path))) {
    const mimeType = file?.mimeType ?? mediaTypeByName(note.path)
    out.push({
      type: 'resource_link',
      uri: resources.uri(note.path),
      name: note.path,
      title: `/work/${note.path}`,
      size: note.size,
      ...(mimeType ? { mimeType } : {}),
    })
    // For the client to keep, not for the model's context: the text already names the file.
    const annotations = { audience: ['user' as const] }
    if (file) out.push({ type: 'resource', resource: resources.contentsOf(file), annotations })
  }
  if (noted.dropped > 0) {
    const more = `${noted.dropped} more workspace file(s) not linked here; resources/list lists them all.`
    out.push({ type: 'text', text: escapeLine(more) })
  }
  return out
}

/**
 * `result` with the call's workspace files appended (`workspaceCallContent`).
 * `notifications/resources/list_changed` is not this function's: the
 * workspace announces its own changes (`ManagerWorkspace.onChange`).
 */
export async function withWorkspaceFiles(
  result: CallToolResult,
  resources: WorkspaceResources | undefined,
  noted: NotedWorkspaceFiles | undefined,
): Promise<CallToolResult> {
  if (resources === undefined || noted === undefined) return result
  const blocks = await workspaceCallContent(resources, noted)
  return blocks.length === 0 ? result : { ...result, content: [...result.content, ...blocks] }
}
