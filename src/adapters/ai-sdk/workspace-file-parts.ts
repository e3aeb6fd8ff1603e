import type { NotedWorkspaceFiles } from '../../common/internal.js'
import { filesOut, mediaTypeByName, readWholeFile } from '../../common/internal.js'
import type { ManagerWorkspace } from '../../manager/internal.js'

/**
 * One session-workspace file a tool call read or wrote, as the AI SDK
 * adapter hands it to the host: its path under `/work`, size and media type,
 * and, when it is at most 64 KiB (`WORKSPACE_EMBED_MAX_BYTES`, 256 KiB per
 * result in all), its exact bytes in base64. A larger file is named only;
 * read it with `manager.workspace`.
 */
export interface SkillToolWorkspaceFile {
  readonly path: string
  readonly change: 'read' | 'written'
  readonly size: number
  readonly mediaType: string
  /** The whole file, base64, when small enough to carry. */
  readonly data?: string
}

/** The files `noted` names (deleted ones left out), each with its bytes when small. */
export async function workspaceFileParts(
  workspace: ManagerWorkspace,
  noted: NotedWorkspaceFiles,
): Promise<SkillToolWorkspaceFile[]> {
  const read = async (path: string) => {
    const whole = await readWholeFile(await workspace.open(), path)
    return whole.ok ? whole.file : undefined
  }
  return (await filesOut(noted, read)).map(({ note, file }) => ({
    path: note.path,
    change: note.change === 'read' ? 'read' : 'written',
    size: note.size,
    mediaType: file?.mimeType ?? mediaTypeByName(note.path) ?? 'application/octet-stream',
    ...(file
      ? {
          data: Buffer.from(
            file.bytes.buffer,
            file.bytes.byteOffset,
            file.bytes.byteLength,
          ).toString('base64'),
        }
      : {}),
  }))
}
