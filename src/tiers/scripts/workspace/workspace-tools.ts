import { SpooledArtifact } from '../../../common/artifacts/index.js'
import { SkillHostError } from '../../../common/errors.js'
import { quoteName } from '../../../common/escape-text.js'
import { fileType } from '../../../common/file-type.js'
import { enforceToolGate, type ToolGate } from '../../../common/gate.js'
import { Tool } from '../../../common/tool.js'
import type { TurnContext } from '../../../common/turn-context.js'
import {
  noteWorkspaceFiles,
  WORKSPACE_FILE_MAX_BYTES,
} from '../../../common/workspace-files-noted.js'
import { MAX_SKILL_PATH_LENGTH } from '../../../skill-model/skill-path.js'
import type { SessionWorkspace } from './session-workspace.js'
import { workspaceRel } from './workspace-open.js'

/** The workspace tools' names. */
export const WORKSPACE_TOOL = {
  list: 'workspace_list',
  read: 'workspace_read',
  write: 'workspace_write',
} as const

/** Entries one workspace_list page holds at most. */
const LIST_PAGE = 200
/** Bytes of a file workspace_read shows inline; the whole file is spooled. */
const READ_PREVIEW_BYTES = 8 * 1024
/** Largest file workspace_read spools, and largest content workspace_write takes. */
export const WORKSPACE_TOOL_MAX_BYTES = WORKSPACE_FILE_MAX_BYTES

function cursorOffset(cursor: unknown): number {
  if (cursor === undefined) return 0
  const match = typeof cursor === 'string' ? /^o:(\d{1,9})$/.exec(cursor) : null
  if (!match) {
    throw new SkillHostError('E_TOOL_INVALID_ARGS', 'cursor is not one workspace_list returned.')
  }
  return Number(match[1])
}

/**
 * The model's tools on the conversation's workspace, tier `workspace`, each
 * gated before it touches anything (so a gate can refuse writes):
 * `workspace_list` (paged), `workspace_read` (a preview inline, the whole
 * file spooled as an untrusted artifact for the artifact readers) and
 * `workspace_write` (UTF-8 or base64 content). Paths are relative to `/work`
 * and follow the workspace's rules (no `..`, no absolute path, never through
 * a symlink, within the size cap).
 */
export function forgeWorkspaceTools(
  acquire: () => Promise<SessionWorkspace>,
  gate: ToolGate,
): Tool[] {
  const gated: Gated =
    (name, run) =>
    async (args, ctx): Promise<string> => {
      await enforceToolGate(gate, ctx, { tool: name, args, tier: 'workspace' })
      return run(args, await acquire(), ctx)
    }
  return [listTool(gated), readTool(gated), writeTool(gated)]
}

/** A workspace tool's handler, gated before it acquires the workspace. */
type Gated = <A>(
  name: string,
  run: (args: A, ws: SessionWorkspace, ctx: TurnContext) => Promise<string>,
) => (args: A, ctx: TurnContext) => Promise<string>

/** A path argument: relative to `/work`, within the skill path length. */
const PATH_SCHEMA = { type: 'string', minLength: 1, maxLength: MAX_SKILL_PATH_LENGTH }

/** `workspace_list`: a page of the workspace's files. */
function listTool(gated: Gated): Tool {
  const path = PATH_SCHEMA
  return new Tool<{ path?: string; cursor?: string }>({
    name: WORKSPACE_TOOL.list,
    description:
      'List the files in the workspace (/work): the working directory of every script call, kept for the whole conversation. Optional path narrows to a folder; page with cursor.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { path: { ...path, minLength: 0 }, cursor: { type: 'string', maxLength: 20 } },
    },
    handler: gated(WORKSPACE_TOOL.list, async (args, ws) => {
      const offset = cursorOffset(args.cursor)
      const entries = await ws.list(args.path)
      const page = entries.slice(offset, offset + LIST_PAGE)
      return JSON.stringify({
        files: page,
        total: entries.length,
        ...(offset + LIST_PAGE < entries.length ? { nextCursor: `o:${offset + LIST_PAGE}` } : {}),
      })
    }),
  })
}

/** `workspace_read`: a preview inline, the whole file spooled as an untrusted artifact. */
function readTool(gated: Gated): Tool {
  const path = PATH_SCHEMA
  return new Tool<{ path: string }>({
    name: WORKSPACE_TOOL.read,
    description:
      'Read a workspace file: text is shown (first 8 KB) and kept whole as an artifact you can page with the artifact_* readers; a binary file is kept as an artifact and described by size and type.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: { path },
    },
    handler: gated(WORKSPACE_TOOL.read, async (args, ws, ctx) => {
      const { bytes, size, truncated } = await ws.get(args.path, WORKSPACE_TOOL_MAX_BYTES)
      const type = fileType(args.path, bytes, !truncated)
      // An adapter can hand the client the file itself (docs/mcp.md, "Workspace files").
      noteWorkspaceFiles([{ path: workspaceRel(args.path), change: 'read', size }])
      const artifact = await SpooledArtifact.spool(
        ctx.spool,
        bytes,
        {
          trusted: false,
          title: `/work/${args.path}`,
          mimeType: type.mediaType,
        },
        // Reading an unchanged file again names the copy already kept.
        { dedupe: true },
      )
      const id = artifact.retrievable.id
      const head = `${quoteName(`/work/${args.path}`)}: ${size} bytes, ${type.mediaType}${truncated ? `, first ${bytes.byteLength} bytes kept` : ''}; copy: ${id}`
      if (!type.text) return `${head} (binary, not shown)`
      const preview = new TextDecoder().decode(bytes.subarray(0, READ_PREVIEW_BYTES))
      const more = bytes.byteLength > READ_PREVIEW_BYTES ? `\n[… more in ${id}]` : ''
      return `${head}\n${preview.replace(/\uFFFD$/, '')}${more}`
    }),
  })
}

/** `workspace_write`: UTF-8 or base64 content into a workspace file. */
function writeTool(gated: Gated): Tool {
  const path = PATH_SCHEMA
  return new Tool<{ path: string; content: string; encoding?: 'utf8' | 'base64' }>({
    name: WORKSPACE_TOOL.write,
    description:
      'Write a file into the workspace (/work), e.g. a JSON input for a script; folders are created. Replaces an existing file. content is UTF-8 text, or base64 with encoding "base64".',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'content'],
      properties: {
        path,
        content: { type: 'string', maxLength: Math.ceil((WORKSPACE_TOOL_MAX_BYTES * 4) / 3) + 4 },
        encoding: { type: 'string', enum: ['utf8', 'base64'] },
      },
    },
    handler: gated(WORKSPACE_TOOL.write, async (args, ws) => {
      const bytes =
        args.encoding === 'base64'
          ? decodeBase64(args.content)
          : new TextEncoder().encode(args.content)
      if (bytes.byteLength > WORKSPACE_TOOL_MAX_BYTES) {
        throw new SkillHostError(
          'E_TOOL_INVALID_ARGS',
          `content is larger than ${WORKSPACE_TOOL_MAX_BYTES} bytes.`,
        )
      }
      const entry = await ws.put(args.path, bytes)
      noteWorkspaceFiles([{ path: entry.path, change: 'written', size: entry.size }])
      return `wrote ${quoteName(`/work/${entry.path}`)} (${entry.size} bytes)`
    }),
  })
}

function decodeBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, ''))) {
    throw new SkillHostError('E_TOOL_INVALID_ARGS', 'content is not valid base64.')
  }
  return Buffer.from(text, 'base64')
}
