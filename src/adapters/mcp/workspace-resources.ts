import { createHash, randomBytes } from 'node:crypto'
import {
  ErrorCode,
  type ListResourcesResult,
  McpError,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js'
import { renderError, SkillHostError } from '../../common/index.js'
import {
  mediaTypeByName,
  readWholeFile,
  WORKSPACE_FILE_MAX_BYTES,
  type WorkspaceFileOut,
} from '../../common/internal.js'
import type { ManagerWorkspace } from '../../manager/internal.js'
import { normalizeSkillPath } from '../../skill-model/internal.js'
import { resourceContents } from './resource-contents.js'

/** The URI scheme of a session's workspace files: `skillhost-workspace://<session key>/<path>`. */
export const WORKSPACE_RESOURCE_SCHEME = 'skillhost-workspace'
/** Workspace files one `resources/list` page holds; `nextCursor` pages on. */
export const WORKSPACE_RESOURCES_PAGE = 500

/**
 * The workspace resource key of session `sessionId`: 128 bits of a sha-256
 * of the id, so every server process serving the session names its files
 * alike (a link from one is readable on another), and a URI shows nothing
 * of the session id itself.
 */
export function workspaceResourceKey(sessionId: string): string {
  return createHash('sha256')
    .update(`skillhost-workspace-uri\0${sessionId}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url')
}

/** Cursors of the workspace's pages start so; the skill files' never do. */
const CURSOR = 'w:'
const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/')

const invalid = (message: string) => new McpError(ErrorCode.InvalidParams, message)

/**
 * One MCP session's view of its manager's workspace as resources. The URI's
 * authority is a 128-bit key per session (random, or `workspaceResourceKey`
 * of a shared session's id, the same on every server process), so a URI is
 * never guessable from another session and is refused there (-32602); each path
 * segment is percent-encoded with `encodeURIComponent`, and a URI in any
 * other spelling is refused. Every read goes through the workspace's
 * descriptor-based `get` (never through a symlink), whole or not at all:
 * a file over `WORKSPACE_FILE_MAX_BYTES`, or one that changed while read,
 * is refused.
 */
export class WorkspaceResources {
  readonly #key: string
  readonly #workspace: ManagerWorkspace

  constructor(workspace: ManagerWorkspace, key?: string) {
    this.#workspace = workspace
    this.#key = key ?? randomBytes(16).toString('base64url')
  }

  /** The resource URI of workspace file `path` (a path the workspace's rule gave). */
  uri(path: string): string {
    return `${WORKSPACE_RESOURCE_SCHEME}://${this.#key}/${encodePath(path)}`
  }

  /** True when `uri` is in the workspace scheme (this session's or not). */
  static owns(uri: string): boolean {
    return uri.startsWith(`${WORKSPACE_RESOURCE_SCHEME}:`)
  }

  /** True when `cursor` is one of the workspace's pages. */
  static ownsCursor(cursor: string | undefined): boolean {
    return cursor?.startsWith(CURSOR) === true
  }

  /**
   * `page`, the last page of the skill files, filled up to `size` entries
   * with the workspace's first files; its `nextCursor` then pages on
   * through the workspace.
   */
  async fill(page: ListResourcesResult, size: number): Promise<ListResourcesResult> {
    const room = Math.max(0, size - page.resources.length)
    const first = await this.list(`${CURSOR}0`, room)
    return { ...first, resources: [...page.resources, ...first.resources] }
  }

  /** A page of `size` of the session's workspace files (regular files only), in path order. */
  async list(cursor: string, size = WORKSPACE_RESOURCES_PAGE): Promise<ListResourcesResult> {
    const match = /^w:(\d{1,9})$/.exec(cursor)
    if (!match) throw invalid('cursor is not one resources/list returned.')
    const offset = Number(match[1])
    const files = (await this.#entries()).filter((e) => e.kind === 'file')
    const resources = files.slice(offset, offset + size).map((e): Resource => {
      const mimeType = mediaTypeByName(e.path)
      return {
        uri: this.uri(e.path),
        name: e.path,
        title: `/work/${e.path}`,
        size: e.size,
        ...(mimeType ? { mimeType } : {}),
      }
    })
    const next = offset + resources.length
    return { resources, ...(next < files.length ? { nextCursor: `${CURSOR}${next}` } : {}) }
  }

  /** `resources/read` of a workspace URI: `blob` (base64), or `text` for exact UTF-8 text. */
  async read(uri: string): Promise<ReadResourceResult> {
    return { contents: [this.contentsOf(await this.file(this.#pathOf(uri)))] }
  }

  /** A file's resource contents, byte-exact by the one rule of `resources/read` (`resourceContents`). */
  contentsOf(file: WorkspaceFileOut): ReadResourceResult['contents'][number] {
    return resourceContents(this.uri(file.path), file.mimeType, file.bytes)
  }

  /** Workspace file `path` read whole through the workspace's descriptors; -32602 beyond the cap. */
  async file(path: string): Promise<WorkspaceFileOut> {
    try {
      const read = await readWholeFile(await this.#workspace.open(), path)
      if (read.ok) return read.file
      throw invalid(
        read.why === 'too-large'
          ? `The workspace file is ${read.size} bytes; resources/read hands out at most ${WORKSPACE_FILE_MAX_BYTES}.`
          : 'The workspace file changed while it was read; read again.',
      )
    } catch (err) {
      if (err instanceof McpError) throw err
      throw toMcpError(err)
    }
  }

  async #entries() {
    try {
      return await (await this.#workspace.open()).list()
    } catch (err) {
      throw toMcpError(err)
    }
  }

  /** The workspace path `uri` names, when it is this session's and in canonical spelling. */
  #pathOf(uri: string): string {
    const prefix = `${WORKSPACE_RESOURCE_SCHEME}://${this.#key}/`
    const refused = invalid(
      'Not a workspace file of this session: use a URI from resources/list or a tool result.',
    )
    if (!uri.startsWith(prefix)) throw refused
    let path: string
    try {
      path = uri.slice(prefix.length).split('/').map(decodeURIComponent).join('/')
    } catch {
      throw refused
    }
    // One spelling per file: `%2F`, `%2e%2e`, `./`, lowercase escapes and the like are refused.
    if (this.uri(path) !== uri || canonical(path) !== path) throw refused
    return path
  }
}

/** The workspace's own spelling of `path`, or undefined for a path it refuses (`..`, absolute). */
function canonical(path: string): string | undefined {
  try {
    return normalizeSkillPath(path)
  } catch {
    return undefined
  }
}

/** A workspace failure as JSON-RPC: a path the workspace refuses or lacks is -32602. */
function toMcpError(err: unknown): McpError {
  const params =
    SkillHostError.isInstance(err) &&
    (err.code === 'E_SKILL_SOURCE_PATH_REJECTED' || err.code === 'E_SKILL_WORKSPACE_FAILED')
  // renderError: `CODE: message`, host paths redacted, never a stack.
  return new McpError(params ? ErrorCode.InvalidParams : ErrorCode.InternalError, renderError(err))
}
