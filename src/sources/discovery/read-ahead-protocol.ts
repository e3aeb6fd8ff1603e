/**
 * What the discovery thread and its read-ahead worker say to each other
 * (`read-ahead.ts`, `read-ahead-worker.ts`): types and slot numbers only.
 */
import type { MessagePort } from 'node:worker_threads'

/** What the worker is given when it starts. */
export interface ReadAheadBoot {
  /** `ReadAheadSlot`s, as an `Int32Array` over this buffer. */
  readonly shared: SharedArrayBuffer
  /** Hints come in on it; answers go out on it (the other end reads them synchronously). */
  readonly port: MessagePort
  /** Folder names never listed (`SKIPPED_FOLDERS`). */
  readonly skip: readonly string[]
  /** The file that makes a folder a skill folder, whose subfolders the scan lists. */
  readonly skillFile: string
  /** How deep below a skill folder its scan lists (`limits.maxDepth`). */
  readonly maxDepth: number
  /** At most this many listings below one skill folder are read ahead. */
  readonly maxBelow: number
  /** At most this many listings are posted and not yet taken. */
  readonly window: number
}

/** Slots of the shared `Int32Array`. */
export const ReadAheadSlot = {
  /** Batches posted by the worker (it notifies here after each). */
  posted: 0,
  /** Listings the discovery thread has taken or dropped (it notifies here once `waiting` is reached). */
  taken: 1,
  /** While the worker waits for room: the `taken` count to wake it at (0: not waiting). */
  waiting: 2,
  /** The highest hint number the discovery thread has asked for: the worker skips hints below it. */
  at: 3,
  /** Set to 1 by the discovery thread to end the worker; by the worker when it failed. */
  stop: 4,
  /** Listings the worker has posted. */
  listed: 5,
} as const

/** The slots a shared buffer holds. */
export const READ_AHEAD_SLOTS = 6

/** Hints, in walk order: `dirs[i]` is hint number `first + i`. */
export interface ReadAheadHints {
  readonly first: number
  readonly dirs: readonly string[]
}

/**
 * One folder's listing: its entries' names joined by `/` (which no name
 * holds) and their types, one `ENTRY_TYPE` digit each, in `readdir` order;
 * or the errno its `readdir` failed with (the discovery thread then lists it
 * itself, for the error as it stands). Two strings, not an array per
 * folder: they cross the thread in one copy each. A listing below a skill
 * folder is a checked one (`SkillFs.readdirChecked`) and carries the
 * canonical path it was proved to be (`real`): the walk takes it only for
 * a scan expecting that very path; one that failed the check is an errno.
 */
export type Listing =
  | readonly [path: string, names: string, types: string]
  | readonly [path: string, names: string, types: string, real: string]
  | readonly [path: string, errno: string]

/** Entry types in a `Listing`, as the digit's char code less `'0'`: what discovery tells apart. */
export const ENTRY_TYPE = { other: 0, file: 1, directory: 2, symlink: 3 } as const

/** The separator of a `Listing`'s names. */
export const NAME_SEPARATOR = '/'

/** The answer to hint number `seq`: the folder's listing and, for a skill folder, the listings below it. */
export interface ReadAheadAnswer {
  readonly seq: number
  readonly top: Listing
  readonly below?: readonly Listing[]
}
