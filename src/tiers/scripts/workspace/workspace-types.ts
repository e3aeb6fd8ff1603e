import type { EntryKind } from '../../../common/door/beneath.js'

/** One file of a session workspace, as `list` reports it. */
export interface WorkspaceEntry {
  /** Relative to the workspace, `/`-separated. */
  readonly path: string
  readonly kind: EntryKind
  readonly size: number
}

/** One regular file read from a session workspace (`SessionWorkspace.get`). */
export interface WorkspaceRead {
  readonly bytes: Uint8Array
  /** The file's size; `truncated` when more than `bytes` holds. */
  readonly size: number
  readonly truncated: boolean
  /** The file's inode and link count: a hard-linked file is one file under two names. */
  readonly ino: number
  readonly links: number
  /** The file's permission bits (`st.mode & 0o7777`), e.g. to keep its executable bits elsewhere. */
  readonly mode: number
}

/** Options of `SessionWorkspace.put`. */
export interface WorkspacePutOptions {
  /**
   * A file this write creates gets executable bits where it is readable (a
   * restored script keeps them); an existing file keeps its own mode.
   */
  readonly executable?: boolean
}
