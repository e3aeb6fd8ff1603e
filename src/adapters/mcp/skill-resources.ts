import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  ListResourcesRequestSchema,
  type McpError,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js'
import { renderError, SkillHostError } from '../../common/index.js'
import { mediaTypeByName } from '../../common/internal.js'
import type { SkillFileContent, SkillManager } from '../../manager/index.js'
import { resourceContents } from './resource-contents.js'
import { invalidParams, protocolError } from './skill-server.js'
import { WorkspaceResources } from './workspace-resources.js'

/** Resources one `resources/list` page holds; `nextCursor` pages on. */
export const SKILL_RESOURCES_PAGE = 500

const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/')

/** The resource URI of file `path` of skill `id`; each path segment is percent-encoded. */
export function skillResourceUri(id: string, path: string): string {
  return `skill://${encodeURIComponent(id)}/${encodePath(path)}`
}

/**
 * The skill id and path a `skill://<id>/<path>` URI names; `McpError`
 * (invalid params) for anything else. The path is then checked by the
 * manager like any model-supplied path.
 */
export function parseSkillResourceUri(uri: string): { id: string; path: string } {
  const bad = () =>
    invalidParams('Not a skill resource URI: use a skill://<id>/<path> URI from resources/list.')
  if (!uri.startsWith('skill://')) throw bad()
  const rest = uri.slice('skill://'.length)
  const slash = rest.indexOf('/')
  if (slash <= 0 || slash === rest.length - 1) throw bad()
  try {
    return {
      id: decodeURIComponent(rest.slice(0, slash)),
      path: rest
        .slice(slash + 1)
        .split('/')
        .map(decodeURIComponent)
        .join('/'),
    }
  } catch {
    throw bad()
  }
}

function toMcpError(err: unknown): McpError {
  const code = SkillHostError.isInstance(err)
    ? // A file the server does not serve is -32602, as the Skills Extension specifies.
      err.code === 'E_SKILL_NOT_LOADED' ||
      err.code === 'E_SKILL_NOT_FOUND' ||
      err.code === 'E_SKILL_SOURCE_PATH_REJECTED'
      ? ErrorCode.InvalidParams
      : ErrorCode.InternalError
    : ErrorCode.InternalError
  // renderError: `CODE: message`, host paths redacted, never a stack.
  return protocolError(code, renderError(err))
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const match = /^o:(\d{1,9})$/.exec(cursor)
  if (!match) throw invalidParams('cursor is not one resources/list returned.')
  return Number(match[1])
}

/**
 * Serves the files of the skills loaded in `manager` as MCP resources:
 * `resources/list` pages (`SKILL_RESOURCES_PAGE` per page) over every loaded
 * skill's files in load order, then path order; `resources/read` returns exactly the file's bytes
 * (`resourceContents`: UTF-8 text as `text`, a leading BOM kept, anything
 * else as a base64 `blob`), with its MIME type. Reads go through
 * `manager.readSkillFile`, so they come from the skill's source, refuse
 * escaping paths, and fail with invalid params (-32602, text
 * `E_SKILL_NOT_LOADED: …`) once the skill is unloaded. With `readServed`
 * (the Skills Extension's reader) a skill it serves is read through it
 * first, loaded or not, each file checked against its listed digest.
 */
export function serveSkillResources(
  server: Server,
  manager: SkillManager,
  readServed?: (id: string, path: string) => Promise<SkillFileContent | undefined>,
  workspace?: WorkspaceResources,
): void {
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    // The session's workspace files page on after the skill files (docs/mcp.md, "Workspace files").
    const cursor = request.params?.cursor
    if (workspace && WorkspaceResources.ownsCursor(cursor)) return workspace.list(cursor as string)
    const offset = decodeCursor(cursor)
    const resources: Resource[] = []
    let skip = offset
    let seen = 0
    for (const id of manager.loaded()) {
      const { total } = manager.skillFiles(id, { limit: 1 })
      seen += total
      if (skip >= total) {
        skip -= total
        continue
      }
      while (resources.length < SKILL_RESOURCES_PAGE && skip < total) {
        const want = SKILL_RESOURCES_PAGE - resources.length
        const { files } = manager.skillFiles(id, { offset: skip, limit: want })
        if (files.length === 0) break
        for (const file of files) {
          const mimeType = mediaTypeByName(file.path)
          resources.push({
            uri: skillResourceUri(id, file.path),
            name: file.path,
            title: `${id}: ${file.path}`,
            size: file.size,
            ...(mimeType ? { mimeType } : {}),
          })
        }
        skip += files.length
      }
      skip = 0
    }
    const next = offset + resources.length
    const page = { resources, ...(next < seen ? { nextCursor: `o:${next}` } : {}) }
    return workspace && next >= seen ? workspace.fill(page, SKILL_RESOURCES_PAGE) : page
  })

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params
    if (workspace && WorkspaceResources.owns(uri)) return workspace.read(uri)
    const { id, path } = parseSkillResourceUri(uri)
    try {
      // A skill the Skills Extension serves is read at its catalog version, loaded or not.
      const file = (await readServed?.(id, path)) ?? (await manager.readSkillFile(id, path))
      const contents = resourceContents(uri, file.mimeType, file.bytes.subarray(0, file.size))
      return { contents: [contents] }
    } catch (err) {
      throw toMcpError(err)
    }
  })
}
