import { type FSWatcher, watch } from 'node:fs'
import { trackResource, type Untrack } from '../../common/leak-tracker.js'

/** Options for `FolderWatcher`. */
export interface FolderWatcherOptions {
  /** Folders watched at once; past it `watch` refuses and says why (`refused`). */
  readonly maxFolders: number
  /**
   * Called for every change the OS reports in a watched folder (an entry
   * added, removed, renamed, written or touched), and when a folder's watch
   * fails or the folder goes away (it is then no longer watched).
   */
  readonly onChange: (dir: string) => void
}

/**
 * One non-recursive OS watch (inotify on Linux) per folder, bounded by
 * `maxFolders`. Events carry no trust: a watch only says "look again", it
 * never says what changed. Watches never keep the process alive.
 */
export class FolderWatcher {
  readonly #options: FolderWatcherOptions
  readonly #watchers = new Map<string, FSWatcher>()
  #refused: string | undefined
  #closed = false
  /** The leak tracker's view: alive while any folder is watched, released by `close`. */
  #untrack: Untrack | undefined

  constructor(options: FolderWatcherOptions) {
    this.#options = options
  }

  /** Folders watched now. */
  get size(): number {
    return this.#watchers.size
  }

  /** Why the last folder that could not be watched was refused (the limit, or the OS's error code). */
  get refused(): string | undefined {
    return this.#refused
  }

  /** Watches `dir`; true when it is watched (already or now), false when it could not be. */
  watch(dir: string): boolean {
    if (this.#watchers.has(dir)) return true
    if (this.#closed) return false
    if (this.#watchers.size >= this.#options.maxFolders) {
      this.#refused = `the watch limit of ${this.#options.maxFolders} folders is reached`
      return false
    }
    let watcher: FSWatcher
    try {
      watcher = watch(dir, { persistent: false }, () => this.#options.onChange(dir))
    } catch (err) {
      // ENOSPC: the kernel's inotify watch limit; ENOENT: gone since it was read.
      this.#refused = `the OS refused a watch (${(err as NodeJS.ErrnoException).code ?? 'error'})`
      return false
    }
    watcher.on('error', () => {
      this.unwatch(dir)
      this.#options.onChange(dir)
    })
    this.#watchers.set(dir, watcher)
    this.#untrack ??= trackResource('watcher', dir, () => this.#watchers.size > 0)
    return true
  }

  /** Whether `dir` is watched now. */
  has(dir: string): boolean {
    return this.#watchers.has(dir)
  }

  /** Stops watching `dir`, if it was watched. */
  unwatch(dir: string): void {
    const watcher = this.#watchers.get(dir)
    if (!watcher) return
    this.#watchers.delete(dir)
    watcher.close()
  }

  /** Stops every watch; later `watch` calls refuse. Idempotent. */
  close(): void {
    this.#closed = true
    for (const watcher of this.#watchers.values()) watcher.close()
    this.#watchers.clear()
    this.#untrack?.()
  }
}
