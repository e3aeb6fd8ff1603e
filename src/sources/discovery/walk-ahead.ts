import type { ReadAhead } from './read-ahead.js'
import type { SyncSkillFs } from './skill-fs.js'
import type { Folder } from './visit-folder.js'

/** Starts a read-ahead over the walk's sync driver (`startReadAhead`), or declines (undefined). */
export type StartReadAhead = (fs: SyncSkillFs) => Promise<ReadAhead | undefined>

/** Folders found for the next level are hinted in runs of this many: one message each, not one per folder. */
const HINT_RUN = 64

/**
 * The walk's side of a read-ahead: started once the walk outlasts its first
 * time slice (a small walk never pays for a thread), then told every folder
 * the walk will visit, in the order it will visit them: the rest of the level
 * it is on, then each folder of the next level as it is found.
 */
export class WalkAhead {
  readonly #start: StartReadAhead | undefined
  #ahead: ReadAhead | undefined
  #tried = false
  /** How many folders of the next level are hinted. */
  #hinted = 0

  constructor(start: StartReadAhead | undefined) {
    this.#start = start
  }

  /**
   * At a slice's end: the first time, starts the read-ahead and hints what
   * is left of this level (`rest`) and the next level so far. Returns the
   * driver to go on with: the read-ahead's, or `fs` when there is none.
   */
  async started(
    fs: SyncSkillFs,
    rest: readonly Folder[],
    next: readonly Folder[],
  ): Promise<SyncSkillFs> {
    if (this.#tried || this.#start === undefined) return this.#ahead?.fs ?? fs
    this.#tried = true
    this.#ahead = await this.#start(fs)
    if (this.#ahead === undefined) return fs
    this.#ahead.hint(rest.map((f) => f.dir))
    this.found(next, true)
    return this.#ahead.fs
  }

  /** After a visit: hints the next level's folders found since the last hint, once a run is due (or `now`). */
  found(next: readonly Folder[], now = false): void {
    if (this.#ahead === undefined || next.length - this.#hinted < (now ? 1 : HINT_RUN)) return
    this.#ahead.hint(next.slice(this.#hinted).map((f) => f.dir))
    this.#hinted = next.length
  }

  /** The level ends: the rest of the next level is hinted, and it becomes the level. */
  levelDone(next: readonly Folder[]): void {
    this.found(next, true)
    this.#hinted = 0
  }

  /** Ends the read-ahead; the walk's driver goes on without it. */
  close(): void {
    this.#ahead?.close()
  }
}
