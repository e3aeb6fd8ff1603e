import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { trackResource, type Untrack } from '../../common/leak-tracker.js'
import {
  ENTRY_TYPE,
  type Listing,
  NAME_SEPARATOR,
  READ_AHEAD_SLOTS,
  type ReadAheadAnswer,
  type ReadAheadBoot,
  type ReadAheadHints,
  ReadAheadSlot,
} from './read-ahead-protocol.js'
import { SKIPPED_FOLDERS } from './scan-skill-folder.js'
import type { DirEntry, SyncSkillFs } from './skill-fs.js'

/** Options for `startReadAhead`. */
export interface ReadAheadOptions {
  /** How deep below a skill folder its scan lists (`limits.maxDepth`). */
  readonly maxDepth: number
  /** Listings posted and not yet taken, at most (bounds the memory ahead). Default 1,024. */
  readonly window?: number
  /** Listings below one skill folder read ahead, at most; deeper ones the walk lists itself. Default 64. */
  readonly maxBelow?: number
  /** How long the walk waits for a hinted listing before it lists every folder itself. Default 2,000 ms. */
  readonly patienceMs?: number
}

/** What a read-ahead did, for tests and benchmarks. */
export interface ReadAheadCounts {
  /** Listings answered from the worker. */
  readonly hits: number
  /** Listings the walk made itself (not hinted, not yet there, or failed ahead). */
  readonly misses: number
  /** Times the walk waited for a hinted listing. */
  readonly waits: number
  /** Listings read ahead and never asked for. */
  readonly dropped: number
  /** Listings the worker has posted so far. */
  readonly listed: number
}

/**
 * Discovery's sync driver with a second core: a worker thread lists the
 * folders the walk will visit next (`hint`, in walk order) and the walk takes
 * each listing synchronously when it reaches the folder. `fs` is the driver
 * to walk with: its `readdir` (hinted folders) and `readdirChecked` (the
 * subfolders of a skill folder, checked by the worker as `inner` checks them)
 * answer from the worker when they can and call `inner` otherwise, so every
 * answer is one `inner` would have given at some moment of the walk;
 * everything else is `inner`'s. A listing that
 * failed ahead is made again by the walk, for the error as it stands then.
 * Not for a walk that watches folders: a watch must be taken before its
 * folder is read, and this reads ahead of the walk.
 */
export interface ReadAhead {
  readonly fs: SyncSkillFs
  /** Folders the walk will list next, after those already hinted, in the order it will list them. */
  hint(dirs: readonly string[]): void
  readonly counts: ReadAheadCounts
  /** Ends the worker; the walk's `fs` goes on without it. Idempotent. */
  close(): void
}

// Workers cannot run TypeScript: from sources (tests), use the compiled twin.
function workerUrl(): URL {
  const here = import.meta.url
  if (here.endsWith('.ts'))
    return new URL('../../../dist/sources/discovery/read-ahead-worker.js', here)
  return new URL('./read-ahead-worker.js', here)
}

// Bounds the worker's own heap: it holds at most a window of listings.
const WORKER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 }

/** A listed entry rebuilt on the walk's thread: the name and type the worker's `readdir` gave. */
class ListedEntry implements DirEntry {
  constructor(
    readonly name: string,
    /** The `ENTRY_TYPE` digit's char code. */
    private readonly type: number,
  ) {}
  isFile(): boolean {
    return this.type === FILE
  }
  isDirectory(): boolean {
    return this.type === DIRECTORY
  }
  isSymbolicLink(): boolean {
    return this.type === SYMLINK
  }
}

const ZERO = '0'.charCodeAt(0)
const FILE = ZERO + ENTRY_TYPE.file
const DIRECTORY = ZERO + ENTRY_TYPE.directory
const SYMLINK = ZERO + ENTRY_TYPE.symlink

function entriesOf(listing: Listing): DirEntry[] | undefined {
  if (listing.length < 3) return undefined
  const [, joined, types] = listing as readonly [string, string, string]
  if (types.length === 0) return []
  const names = joined.split(NAME_SEPARATOR)
  const entries = new Array<DirEntry>(names.length)
  for (let i = 0; i < names.length; i++)
    entries[i] = new ListedEntry(names[i]!, types.charCodeAt(i))
  return entries
}

class WorkerReadAhead implements ReadAhead {
  readonly fs: SyncSkillFs
  readonly #inner: SyncSkillFs
  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #shared: Int32Array
  readonly #patienceMs: number
  readonly #untrack: Untrack
  /** Hinted and not yet answered: each folder's hint number. */
  readonly #hinted = new Map<string, number>()
  /** Answered and not yet taken, in hint order. */
  readonly #ready = new Map<string, ReadAheadAnswer>()
  /** The listings below the skill folder taken last, not yet taken themselves. */
  #below = new Map<string, Listing>()
  #nextSeq = 0
  #open = true
  #counts = { hits: 0, misses: 0, waits: 0, dropped: 0 }

  constructor(inner: SyncSkillFs, options: ReadAheadOptions) {
    this.#inner = inner
    this.#patienceMs = options.patienceMs ?? 2_000
    const buffer = new SharedArrayBuffer(READ_AHEAD_SLOTS * Int32Array.BYTES_PER_ELEMENT)
    this.#shared = new Int32Array(buffer)
    const { port1, port2 } = new MessageChannel()
    this.#port = port1
    const boot: ReadAheadBoot = {
      shared: buffer,
      port: port2,
      skip: [...SKIPPED_FOLDERS],
      skillFile: 'SKILL.md',
      maxDepth: options.maxDepth,
      maxBelow: options.maxBelow ?? 64,
      window: options.window ?? 1_024,
    }
    this.#worker = new Worker(workerUrl(), {
      workerData: boot,
      transferList: [port2],
      resourceLimits: WORKER_RESOURCE_LIMITS,
      env: {},
    })
    this.#untrack = trackResource('worker', 'discovery read-ahead worker')
    this.#worker.on('exit', () => this.#untrack())
    // A failed worker only means the walk lists every folder itself.
    this.#worker.on('error', () => this.close())
    // Never keeps the process alive on its own.
    this.#worker.unref()
    this.fs = {
      ...inner,
      readdir: (path) => this.#readdir(path),
      readdirChecked: (path, real) => this.#readdirChecked(path, real),
    }
  }

  get counts(): ReadAheadCounts {
    return { ...this.#counts, listed: Atomics.load(this.#shared, ReadAheadSlot.listed) }
  }

  hint(dirs: readonly string[]): void {
    if (!this.#open) return
    const fresh = dirs.filter((d) => !this.#hinted.has(d) && !this.#ready.has(d))
    if (fresh.length === 0) return
    const hints: ReadAheadHints = { first: this.#nextSeq, dirs: fresh }
    for (const d of fresh) this.#hinted.set(d, this.#nextSeq++)
    this.#port.postMessage(hints)
  }

  close(): void {
    if (!this.#open) return
    this.#open = false
    Atomics.store(this.#shared, ReadAheadSlot.stop, 1)
    Atomics.notify(this.#shared, ReadAheadSlot.taken)
    this.#port.close()
    this.#hinted.clear()
    this.#ready.clear()
    this.#below.clear()
    // Released once the thread is gone; a leak check waits for it.
    this.#untrack(this.#worker.terminate())
  }

  /**
   * A scan's checked listing of a subfolder: the worker's, if it made the
   * same check against the same canonical path (`Listing`'s `real`);
   * otherwise the walk's own (`inner`), so no unchecked listing is taken.
   */
  #readdirChecked(path: string, real: string): DirEntry[] | undefined {
    const below = this.#below.get(path)
    // Kept when checked against another path: a scan that finds its skill folder's path was not
    // canonical asks again with the canonical one, which the worker may have used.
    if (below !== undefined && (below.length !== 4 || below[3] === real)) {
      this.#below.delete(path)
      this.#taken(1)
      const entries = entriesOf(below)
      if (entries !== undefined) {
        this.#counts.hits++
        return entries
      }
    }
    this.#counts.misses++
    return this.#inner.readdirChecked(path, real)
  }

  #readdir(path: string): DirEntry[] {
    const answer = this.#answer(path)
    if (answer === undefined) {
      this.#counts.misses++
      return this.#inner.readdir(path)
    }
    this.#dropBefore(answer.seq)
    this.#ready.delete(path)
    this.#below = new Map(answer.below?.map((l) => [l[0], l]))
    this.#taken(1)
    return this.#hit(path, answer.top)
  }

  #hit(path: string, listing: Listing): DirEntry[] {
    const entries = entriesOf(listing)
    if (entries === undefined) {
      this.#counts.misses++
      return this.#inner.readdir(path)
    }
    this.#counts.hits++
    return entries
  }

  /**
   * Hinted `path`'s answer, waiting for the worker when it is still to come;
   * undefined when `path` was not hinted or the worker is gone. Answers to
   * earlier hints are dropped first: the walk asks in hint order, so it has
   * gone past them, and a window full of them would stall the worker.
   */
  #answer(path: string): ReadAheadAnswer | undefined {
    if (!this.#open) return undefined
    this.#drain()
    const ready = this.#ready.get(path)
    if (ready !== undefined) return ready
    const seq = this.#hinted.get(path)
    if (seq === undefined) return undefined
    const shared = this.#shared
    // The worker skips what comes before it: the walk is already here.
    if (seq > Atomics.load(shared, ReadAheadSlot.at)) Atomics.store(shared, ReadAheadSlot.at, seq)
    // Still starting: the walk lists on rather than wait for a thread to boot.
    if (Atomics.load(shared, ReadAheadSlot.posted) === 0) return undefined
    this.#counts.waits++
    for (;;) {
      const posted = Atomics.load(shared, ReadAheadSlot.posted)
      this.#drain()
      this.#dropBefore(seq)
      const answer = this.#ready.get(path)
      if (answer !== undefined) return answer
      if (
        Atomics.load(shared, ReadAheadSlot.stop) !== 0 ||
        Atomics.wait(shared, ReadAheadSlot.posted, posted, this.#patienceMs) === 'timed-out'
      ) {
        this.close()
        return undefined
      }
    }
  }

  /** Moves every answer the worker has posted from the port to `#ready`. */
  #drain(): void {
    for (let m = receiveMessageOnPort(this.#port); m; m = receiveMessageOnPort(this.#port)) {
      for (const answer of m.message as ReadAheadAnswer[]) {
        const path = answer.top[0]
        this.#hinted.delete(path)
        this.#ready.set(path, answer)
      }
    }
  }

  /** Drops answers the walk went past, and what is left below the skill folder taken before. */
  #dropBefore(seq: number): void {
    let dropped = this.#below.size
    for (const [path, answer] of this.#ready) {
      if (answer.seq >= seq) break
      this.#ready.delete(path)
      dropped += 1 + (answer.below?.length ?? 0)
    }
    if (dropped === 0) return
    this.#counts.dropped += dropped
    this.#taken(dropped)
  }

  #taken(n: number): void {
    const shared = this.#shared
    const taken = Atomics.add(shared, ReadAheadSlot.taken, n) + n
    const wakeAt = Atomics.load(shared, ReadAheadSlot.waiting)
    // One notify per wait: the first to clear the slot wakes the worker.
    if (
      wakeAt !== 0 &&
      taken >= wakeAt &&
      Atomics.compareExchange(shared, ReadAheadSlot.waiting, wakeAt, 0) === wakeAt
    )
      Atomics.notify(shared, ReadAheadSlot.taken)
  }
}

/**
 * Starts a read-ahead worker for one sync walk over `inner` (see `ReadAhead`).
 * Close it when the walk ends; it never keeps the process alive.
 */
export function startReadAhead(inner: SyncSkillFs, options: ReadAheadOptions): ReadAhead {
  return new WorkerReadAhead(inner, options)
}
