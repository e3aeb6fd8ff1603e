import { FolderWatcher } from './folder-watcher.js'
import type { FsSteps } from './fs-steps.js'
import {
  type FsSkillEntry,
  type FsSkillOutcome,
  type LoadFsSkillOptions,
  loadFsSkillSteps,
} from './load-fs-skill.js'
import { scannedFolders, scanSkillFolderSteps } from './scan-skill-folder.js'
import type { DirEntry } from './skill-fs.js'
import { type Folder, type Visit, type VisitOptions, visitSteps } from './visit-folder.js'

const NO_DIRS: readonly string[] = Object.freeze([])

/** What the cache keeps of one folder of the walk. */
interface Memo {
  /** Where the walk met the folder: a folder met at another depth or path is another memo. */
  readonly depth: number
  readonly rel: string
  readonly visit: Visit
  /** The folders whose changes make this visit stale (a skill's: every folder it scanned). */
  readonly dirs: readonly string[]
  /** The last pass that walked through this folder. */
  seen: number
}

/** Options for `VisitCache`. */
export interface VisitCacheOptions {
  /**
   * Watch every folder read and call `onChange` when one changes. Without
   * it, every pass looks again (see `VisitCache.visit`).
   */
  readonly watch?: { readonly maxFolders: number; readonly onChange: () => void }
}

/** How much of the cache the OS watches; see `VisitCache.watchState`. */
export interface WatchState {
  /** Folders watched now. */
  readonly folders: number
  /** Why some folder is not watched (those are looked at again on every pass), when one is not. */
  readonly unwatched?: string
}

/**
 * Discovery's per-folder cache, keyed by the folder's walk position (depth,
 * root-relative path, path read). A pass asks `visit` for each folder:
 *
 * - **watched and clean** (an OS watch on every folder the visit read, and
 *   no event since it was read): the remembered visit, no filesystem call;
 * - **a skill folder seen before**: the folder is rescanned (listing and
 *   stats only, the stat identity of every file) and, when its hash is the
 *   same, the remembered outcome is reused: SKILL.md and the sidecar are
 *   neither read nor parsed again;
 * - anything else is read as if new.
 *
 * A watch is taken before a folder is read, so a change during the read is
 * not lost; the subfolders of a skill are watched once its scan has listed
 * them (a change inside one in that instant waits for the next event or
 * `invalidate`). Without watches only loaded skills are remembered: nothing
 * else is ever reused, and a walk of a big tree should not hold every folder. Folders a completed pass no longer reached are dropped with
 * their watches (`complete`). `clean` says a pass would change nothing.
 */
export class VisitCache {
  readonly #memos = new Map<string, Memo>()
  /** The memo each watched folder belongs to. */
  readonly #owner = new Map<string, Memo>()
  /** Memos a pass must look at again: changed, not fully watched, or unreadable. */
  readonly #stale = new Set<Memo>()
  /** The event counter at each folder's last change. */
  readonly #changedAt = new Map<string, number>()
  readonly #watcher: FolderWatcher | undefined
  #events = 0
  /** The event counter when the current pass began. */
  #passStartedAt = 0
  #pass = 0
  #completed = 0

  constructor(options: VisitCacheOptions = {}) {
    const watch = options.watch
    this.#watcher =
      watch &&
      new FolderWatcher({
        maxFolders: watch.maxFolders,
        onChange: (dir) => {
          this.#changed(dir)
          watch.onChange()
        },
      })
  }

  /** True when a pass now would find nothing changed: every folder watched, no change seen since. */
  get clean(): boolean {
    return (
      this.#watcher !== undefined &&
      this.#completed === this.#pass &&
      this.#pass > 0 &&
      this.#stale.size === 0
    )
  }

  /** Folders the cache remembers. */
  get size(): number {
    return this.#memos.size
  }

  /** How much is watched, and why some folder is not. */
  watchState(): WatchState | undefined {
    const w = this.#watcher
    if (!w) return undefined
    let unwatched = 0
    for (const memo of this.#stale) if (!this.#fullyWatched(memo)) unwatched++
    return unwatched > 0 && w.refused !== undefined
      ? { folders: w.size, unwatched: `${unwatched} folder(s) not watched: ${w.refused}` }
      : { folders: w.size }
  }

  /** Starts a pass; give the number to `complete` when the pass walked every root. */
  begin(): number {
    this.#passStartedAt = this.#events
    return ++this.#pass
  }

  /** Ends a complete pass: folders it did not reach are forgotten and unwatched. */
  complete(pass: number): void {
    for (const [key, memo] of this.#memos) {
      if (memo.seen >= pass) continue
      this.#memos.delete(key)
      this.#stale.delete(memo)
      this.#release(memo)
    }
    if (pass === this.#pass) this.#completed = pass
  }

  /**
   * Marks the folder `dir` (a skill folder or one of its subfolders) as
   * changed: the next pass reads it again. For what the source learns
   * outside the walk (a rescan that found a skill changed).
   */
  invalidate(dir: string): void {
    this.#changed(dir)
  }

  /** Stops every watch. The cache keeps working without them. */
  close(): void {
    this.#watcher?.close()
    for (const memo of this.#memos.values()) this.#stale.add(memo)
  }

  /**
   * The steps of `folder`'s visit in the current pass (see the class
   * comment): the remembered visit, or the folder read (reusing an unchanged
   * skill's outcome). The walk hands the visit they produce to `remember`.
   */
  visit(folder: Folder, depth: number, options: VisitOptions): FsSteps<Visit> {
    const memo = this.#memoOf(folder, depth)
    if (memo) {
      memo.seen = this.#pass
      if (this.#watcher && !this.#stale.has(memo)) return remembered(memo.visit)
    }
    // Watched before it is read: a change during the read is not lost.
    this.#watcher?.watch(folder.dir)
    const previous =
      memo?.visit.kind === 'skill' && memo.visit.outcome.ok ? memo.visit.outcome.entry : undefined
    // Handed straight to the walk, not wrapped: a generator in between costs every step.
    return visitSteps(
      folder,
      depth,
      previous && !(options.overlays && options.overlays.length > 0)
        ? { ...options, loadSkill: reuseUnchanged(previous) }
        : options,
    )
  }

  /** Records the visit the steps from `visit` produced for `folder`, and watches what it read. */
  remember(folder: Folder, depth: number, visit: Visit): void {
    const found = this.#memos.get(folder.dir)
    if (found?.visit === visit) return
    if (!this.#watcher && !(visit.kind === 'skill' && visit.outcome.ok)) {
      // Unwatched, a later pass reuses only a loaded skill's outcome: nothing else is kept.
      if (found) this.#memos.delete(folder.dir)
      return
    }
    // Unwatched, nothing is observed: the memo names no folders.
    const dirs = !this.#watcher
      ? NO_DIRS
      : visit.kind === 'skill' && visit.outcome.ok
        ? scannedFolders(visit.outcome.entry.scan)
        : [folder.dir]
    const next: Memo = { depth, rel: folder.rel, visit, dirs, seen: this.#pass }
    // Keyed by the path read (already a string), checked against where the walk met it.
    this.#memos.set(folder.dir, next)
    if (found) this.#stale.delete(found)
    // Unwatched, every pass looks again: no owners or marks to keep.
    if (!this.#watcher) return
    let stale = visit.kind === 'unreadable'
    for (const dir of dirs) {
      this.#owner.set(dir, next)
      if (!this.#watcher.watch(dir)) stale = true
      // A change since this pass began may have come after the read: look again next pass.
      if ((this.#changedAt.get(dir) ?? -1) > this.#passStartedAt) stale = true
    }
    if (stale) this.#stale.add(next)
    // Only the folders the new visit no longer owns lose their watch.
    if (found) this.#release(found)
  }

  #memoOf(folder: Folder, depth: number): Memo | undefined {
    const found = this.#memos.get(folder.dir)
    return found && found.depth === depth && found.rel === folder.rel ? found : undefined
  }

  #changed(dir: string): void {
    this.#changedAt.set(dir, ++this.#events)
    const memo = this.#owner.get(dir)
    if (memo) this.#stale.add(memo)
  }

  #fullyWatched(memo: Memo): boolean {
    return memo.dirs.every((d) => this.#watcher?.has(d) === true)
  }

  /** Unwatches the folders `memo` owned and forgets their change marks. */
  #release(memo: Memo): void {
    for (const dir of memo.dirs) {
      if (this.#owner.get(dir) !== memo) continue
      this.#owner.delete(dir)
      this.#changedAt.delete(dir)
      this.#watcher?.unwatch(dir)
    }
  }
}

/**
 * A loader that rescans the folder (listing and stats, no reads) and keeps
 * `previous` when the stat hash is unchanged: same files, sizes, mtimes and
 * inodes, hence the same version. Anything else, or a rescan that fails, is
 * loaded afresh so its errors are reported as they always are.
 */
function reuseUnchanged(previous: FsSkillEntry) {
  return function* reuse(
    dir: string,
    folderName: string,
    options: LoadFsSkillOptions,
    entries?: readonly DirEntry[],
  ): FsSteps<FsSkillOutcome> {
    try {
      const scan = yield* scanSkillFolderSteps(
        dir,
        options.limits,
        entries,
        undefined,
        options.statLoadedOnly,
      )
      if (scan.hash === previous.scan.hash && dir === previous.dir) {
        // Same files, same version; a folder added or removed (empty) changes only what to watch.
        const same = sameList(scan.folders, previous.scan.folders)
        return {
          ok: true,
          entry: same
            ? previous
            : { ...previous, scan: { ...previous.scan, folders: scan.folders } },
        }
      }
    } catch {
      // Loaded afresh below, which reports the failure.
    }
    return yield* loadFsSkillSteps(dir, folderName, options, entries)
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/** The steps of a visit already known: none. */
// biome-ignore lint/correctness/useYield: a generator that answers at once, without a request.
function* remembered(visit: Visit): FsSteps<Visit> {
  return visit
}
