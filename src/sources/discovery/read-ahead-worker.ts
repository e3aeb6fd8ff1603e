/**
 * The read-ahead worker (`read-ahead.ts`): lists the folders a discovery walk
 * will visit next, in the order it will visit them, and posts the listings
 * for the walk to take synchronously. It follows no symlink, lists only what
 * it was hinted plus the subfolders of a skill folder among them (as the
 * skill's scan will), reads no file but a skill folder's SKILL.md (as the
 * loader will, with `readCapped`'s flags), and stays at most `window` units
 * ahead.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { receiveMessageOnPort, workerData } from 'node:worker_threads'
import {
  answerUnits,
  ENTRY_TYPE,
  type Listing,
  NAME_SEPARATOR,
  type ReadAheadAnswer,
  type ReadAheadBoot,
  type ReadAheadFile,
  type ReadAheadHints,
  ReadAheadSlot,
} from './read-ahead-protocol.js'
import { childPath, READ_FLAGS } from './skill-fs.js'

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
/** Answers per message: few enough that the walk never waits long for the one it needs. */
const BATCH_ANSWERS = 64
const BATCH_LISTINGS = 256
/** Room for a batch's files; a bigger file gets a buffer of its own. */
const BATCH_BYTES = 256 * 1024
/** The batch's file bytes, transferred with it (never copied across). */
let bytes = new Uint8Array(BATCH_BYTES)
let filled = 0

function list(path: string): Listing {
  try {
    const entries = readdirSync(path, WITH_TYPES)
    let names = ''
    let types = ''
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!
      names += i === 0 ? e.name : NAME_SEPARATOR + e.name
      types += e.isFile()
        ? FILE
        : e.isDirectory()
          ? DIRECTORY
          : e.isSymbolicLink()
            ? SYMLINK
            : OTHER
    }
    return [path, names, types]
  } catch (err) {
    return [path, (err as NodeJS.ErrnoException).code ?? 'error']
  }
}

const stopped = (): boolean => Atomics.load(shared, ReadAheadSlot.stop) !== 0

/** The subfolders a skill's scan lists, depth-first, at most `maxBelow` of them; no symlink followed. */
function listBelow(top: Listing, names: readonly string[]): Listing[] {
  const below: Listing[] = []
  const pending: [listing: Listing, names: readonly string[], depth: number][] = [[top, names, 0]]
  for (let next = pending.pop(); next && below.length < boot.maxBelow; next = pending.pop()) {
    const [listing, listed, depth] = next
    if (listing.length !== 3 || depth + 1 > boot.maxDepth) continue
    const types = listing[2]
    for (let i = 0; i < types.length && below.length < boot.maxBelow; i++) {
      if (types[i] !== DIRECTORY || skip.has(listed[i]!)) continue
      const sub = list(childPath(listing[0], listed[i]!))
      below.push(sub)
      if (sub.length === 3) pending.push([sub, sub[1].split(NAME_SEPARATOR), depth + 1])
    }
  }
  return below
}

/**
 * A skill folder's SKILL.md, read as the loader's `readCapped` will (same
 * flags; a regular file; size and identity from the open descriptor), into
 * the batch's buffer. Undefined when there is none to read ahead, or it is
 * not a plain file, too big or unreadable: the loader then reads it itself
 * and meets the error as it stands.
 */
function readSkillFile(
  top: Listing,
  names: readonly string[] | undefined,
): ReadAheadFile | undefined {
  if (top.length !== 3 || names === undefined) return undefined
  const i = names.indexOf(boot.skillFile)
  if (i < 0 || top[2][i] !== FILE) return undefined
  let fd: number | undefined
  try {
    fd = openSync(childPath(top[0], boot.skillFile), READ_FLAGS)
    const s = fstatSync(fd)
    if (!s.isFile() || s.size > boot.maxFileBytes) return undefined
    if (filled + s.size > bytes.byteLength) {
      flush()
      bytes = new Uint8Array(Math.max(BATCH_BYTES, s.size))
    }
    let got = 0
    while (got < s.size) {
      const n = readSync(fd, bytes, filled + got, s.size - got, null)
      if (n === 0) break
      got += n
    }
    const file = { offset: filled, size: got, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino }
    filled += got
    return file
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function flush(): void {
  if (batch.length === 0) return
  if (filled > 0) {
    boot.port.postMessage({ answers: batch, bytes: bytes.buffer }, [bytes.buffer])
    bytes = new Uint8Array(BATCH_BYTES)
    filled = 0
  } else boot.port.postMessage({ answers: batch })
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

/** What the walk gets for a hinted folder: its listing, and for a skill folder what its loader reads next. */
function answer(seq: number, top: Listing): ReadAheadAnswer {
  const names = top.length === 3 ? top[1].split(NAME_SEPARATOR) : undefined
  if (names === undefined || !names.includes(boot.skillFile)) return { seq, top }
  const below = listBelow(top, names)
  const file = readSkillFile(top, names)
  return file === undefined ? { seq, top, below } : { seq, top, below, file }
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
    // Made before it is pushed: reading its file may post the batch before it.
    const made = answer(seq, list(dir))
    batch.push(made)
    batchListings += answerUnits(made)
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
