import { fileType } from './file-type.js'
import {
  type NotedWorkspaceFile,
  type NotedWorkspaceFiles,
  WORKSPACE_FILE_MAX_BYTES,
} from './workspace-files-noted.js'

/** Largest workspace file a tool result carries itself, besides naming it. */
export const WORKSPACE_EMBED_MAX_BYTES = 64 * 1024
/**
 * Most bytes of files one tool result carries in all; past it, files are
 * named only. Kept small because many hosts store or replay tool results
 * whole; a client fetches larger files itself.
 */
export const WORKSPACE_EMBED_TOTAL_BYTES = 256 * 1024

/**
 * One workspace file read whole for a client: its exact bytes and media
 * type. Whether it travels as a string is not its own field: the adapter's
 * one rule decides from these two (MCP: `resourceContents`; the AI SDK
 * always sends base64).
 */
export interface WorkspaceFileOut {
  readonly path: string
  readonly bytes: Uint8Array
  readonly mimeType: string
}

/** What reads a workspace file by descriptor, at most `maxBytes` of it (`SessionWorkspace.get`). */
export interface WorkspaceFileReader {
  get(
    path: string,
    maxBytes: number,
  ): Promise<{ readonly bytes: Uint8Array; readonly size: number; readonly truncated: boolean }>
}

/** A whole read, or why there is none: past `WORKSPACE_FILE_MAX_BYTES`, or changed while read. */
export type WholeRead =
  | { readonly ok: true; readonly file: WorkspaceFileOut }
  | { readonly ok: false; readonly why: 'too-large' | 'changed'; readonly size: number }

/**
 * Reads workspace file `path` whole through `reader` (never by path from
 * here), or says why not: a file over `WORKSPACE_FILE_MAX_BYTES`, or one
 * whose bytes fell short of its size, is never handed out cut.
 */
export async function readWholeFile(reader: WorkspaceFileReader, path: string): Promise<WholeRead> {
  const read = await reader.get(path, WORKSPACE_FILE_MAX_BYTES)
  if (read.size > WORKSPACE_FILE_MAX_BYTES) return { ok: false, why: 'too-large', size: read.size }
  if (read.truncated) return { ok: false, why: 'changed', size: read.size }
  const mimeType = fileType(path, read.bytes, true).mediaType
  return { ok: true, file: { path, bytes: read.bytes, mimeType } }
}

/** One file a call wrote or read, as a result hands it out: named always, carried when small. */
export interface FileOut {
  readonly note: NotedWorkspaceFile
  /** The file itself, when within `WORKSPACE_EMBED_MAX_BYTES` and the result's budget. */
  readonly file?: WorkspaceFileOut
}

/**
 * The files one call noted that a result hands out (deleted ones are not),
 * in note order, each read whole (`read`) when it is at most
 * `WORKSPACE_EMBED_MAX_BYTES` and `WORKSPACE_EMBED_TOTAL_BYTES` is not
 * spent. A file that vanished or grew since the call is named only. The one
 * rule both adapters follow.
 */
export async function filesOut(
  noted: NotedWorkspaceFiles,
  read: (path: string) => Promise<WorkspaceFileOut | undefined>,
): Promise<FileOut[]> {
  const out: FileOut[] = []
  let budget = WORKSPACE_EMBED_TOTAL_BYTES
  for (const note of noted.files) {
    if (note.change === 'deleted') continue
    const small = note.size <= Math.min(budget, WORKSPACE_EMBED_MAX_BYTES)
    const file = small ? await read(note.path).catch(() => undefined) : undefined
    if (file === undefined || file.bytes.byteLength > Math.min(budget, WORKSPACE_EMBED_MAX_BYTES)) {
      out.push({ note })
      continue
    }
    budget -= file.bytes.byteLength
    out.push({ note: { ...note, size: file.bytes.byteLength }, file })
  }
  return out
}
