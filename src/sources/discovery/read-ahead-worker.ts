/**
 * The read-ahead worker (`read-ahead.ts`): lists the folders a discovery walk
 * will visit next, in the order it will visit them, and posts the listings
 * for the walk to take synchronously. It follows no symlink, reads no file,
 * and lists only what it was hinted plus the subfolders of a skill folder
 * among them (as the skill's scan will), at most `window` listings ahead.
 */
import { readdirSync, realpathSync } from 'node:fs'
import { receiveMessageOnPort, workerData } from 'node:worker_threads'
import {
  ENTRY_TYPE,
  type Listing,
  NAME_SEPARATOR,
  type ReadAheadAnswer,
  type ReadAheadBoot,
  type ReadAheadHints,
  ReadAheadSlot,
} from './read-ahead-protocol.js'
import { childPath, type DirEntry, syncSkillFs } from './skill-fs.js'

const boot = workerData as ReadAheadBoot
const shared = new Int32Array(boot.shared)
const skip = new Set(boot.skip)
const queue: string[] = []
let nextSeq = 0
let produced = 0
let batch: ReadAheadAnswer[] = []
let batchListings = 0

const WITH_TYPES = { withFileTypes: true } as const
const FILE = String(ENTRY_TYPE.file)
const DIRECTORY = String(ENTRY_TYPE.directory)
const SYMLINK = String(ENTRY_TYPE.symlink)
const OTHER = String(ENTRY_TYPE.other)
/** The errno-like answer for a subfolder that is not where its check expects it. */
const CHANGED = 'ECHANGED'
/** Answers per message: few enough that the walk never waits long for the one it needs. */
const BATCH_ANSWERS = 64
const BATCH_LISTINGS = 256

/** `path`'s listing by path: a folder the walk hinted (the walk judges what it finds there). */
function list(path: string): Listing {
  try {
    return listingOf(path, readdirSync(path, WITH_TYPES))
  } catch (err) {
    return [path, (err as NodeJS.ErrnoException).code ?? 'error']
  }
}

/**
 * `path`'s listing if it is the folder at canonical `real`, by the scan's own
 * rule (`readdirChecked`): a subfolder swapped for a symlink, or reached
 * through a swapped parent, is never listed here.
 */
function listChecked(path: string, real: string): Listing {
  try {
    const entries = syncSkillFs.readdirChecked(path, real)
    if (entries === undefined) return [path, CHANGED]
    return [...listingOf(path, entries), real]
  } catch (err) {
    return [path, (err as NodeJS.ErrnoException).code ?? 'error']
  }
}

function listingOf(path: string, entries: readonly DirEntry[]): readonly [string, string, string] {
  let names = ''
  let types = ''
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    names += i === 0 ? e.name : NAME_SEPARATOR + e.name
    types += e.isFile() ? FILE : e.isDirectory() ? DIRECTORY : e.isSymbolicLink() ? SYMLINK : OTHER
  }
  return [path, names, types]
}

/** The canonical path of a skill folder; undefined when it cannot be resolved (the scan lists then). */
function realOf(dir: string): string | undefined {
  try {
    return realpathSync.native(dir)
  } catch {
    return undefined
  }
}

const stopped = (): boolean => Atomics.load(shared, ReadAheadSlot.stop) !== 0

/** The subfolders a skill's scan lists, depth-first, at most `maxBelow` of them; no symlink followed. */
function listBelow(top: Listing): Listing[] | undefined {
  if (top.length !== 3 || !top[1].split(NAME_SEPARATOR).includes(boot.skillFile)) return undefined
  const below: Listing[] = []
  // Where the skill folder canonically is: its path, until a check disagrees (as the scan's `SkillPlace`).
  let base = top[0]
  let rebased = false
  const pending: [listing: Listing, rel: string, depth: number][] = [[top, '', 0]]
  for (let next = pending.pop(); next && below.length < boot.maxBelow; next = pending.pop()) {
    const [listing, rel, depth] = next
    if (listing.length < 3 || depth + 1 > boot.maxDepth) continue
    const [dir, joined, types] = listing as readonly [string, string, string]
    const names = joined.split(NAME_SEPARATOR)
    for (let i = 0; i < types.length && below.length < boot.maxBelow; i++) {
      if (types[i] !== DIRECTORY || skip.has(names[i]!)) continue
      const subRel = rel === '' ? names[i]! : `${rel}/${names[i]!}`
      const path = childPath(dir, names[i]!)
      let sub = listChecked(path, childPath(base, subRel))
      if (sub.length === 2 && sub[1] === CHANGED && !rebased) {
        rebased = true
        const real = realOf(top[0])
        if (real !== undefined && real !== base) {
          base = real
          sub = listChecked(path, childPath(base, subRel))
        }
      }
      below.push(sub)
      pending.push([sub, subRel, depth + 1])
    }
  }
  return below
}

function flush(): void {
  if (batch.length === 0) return
  boot.port.postMessage(batch)
  produced += batchListings
  Atomics.store(shared, ReadAheadSlot.listed, produced)
  batch = []
  batchListings = 0
  Atomics.add(shared, ReadAheadSlot.posted, 1)
  Atomics.notify(shared, ReadAheadSlot.posted)
}

/**
 * Waits while `window` listings are posted and not taken, until half of them
 * are taken (one wake per half window, not one per listing); false once told
 * to stop.
 */
function roomAhead(): boolean {
  const full = produced + batchListings - Atomics.load(shared, ReadAheadSlot.taken) >= boot.window
  if (!full) return !stopped()
  flush()
  // Never 0, which means "not waiting".
  const wakeAt = Math.max(1, produced - (boot.window >> 1))
  for (;;) {
    if (stopped()) return false
    const taken = Atomics.load(shared, ReadAheadSlot.taken)
    if (taken >= wakeAt) return true
    Atomics.store(shared, ReadAheadSlot.waiting, wakeAt)
    // Timed, so a stop is seen even if its notify came before the wait.
    Atomics.wait(shared, ReadAheadSlot.taken, taken, 200)
    Atomics.store(shared, ReadAheadSlot.waiting, 0)
  }
}

function take(hints: ReadAheadHints): void {
  if (hints.first !== nextSeq + queue.length) throw new Error('read-ahead hints out of order')
  for (const dir of hints.dirs) queue.push(dir)
}

/** Lists hinted folders until none is left (or the walk stops it), pulling new hints as it goes. */
function drive(): void {
  for (;;) {
    for (let m = receiveMessageOnPort(boot.port); m; m = receiveMessageOnPort(boot.port))
      take(m.message as ReadAheadHints)
    const dir = queue.shift()
    if (dir === undefined) break
    const seq = nextSeq++
    // The walk has gone past it (it listed the folder itself): not worth listing.
    if (seq < Atomics.load(shared, ReadAheadSlot.at)) continue
    if (!roomAhead()) return
    const top = list(dir)
    const below = listBelow(top)
    batch.push(below === undefined ? { seq, top } : { seq, top, below })
    batchListings += 1 + (below?.length ?? 0)
    // Posted at once while the walk is close behind (it may be waiting for it); batched once well ahead.
    const near = seq - Atomics.load(shared, ReadAheadSlot.at) < BATCH_ANSWERS
    if (near || batch.length >= BATCH_ANSWERS || batchListings >= BATCH_LISTINGS) flush()
  }
  flush()
}

boot.port.on('message', (hints: ReadAheadHints) => {
  try {
    take(hints)
    drive()
  } catch {
    // The walk then lists every folder itself; it never depends on this thread.
    Atomics.store(shared, ReadAheadSlot.stop, 1)
    Atomics.notify(shared, ReadAheadSlot.posted)
    boot.port.close()
  }
})
