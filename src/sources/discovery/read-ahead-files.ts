import { type ReadAheadAnswer, type ReadAheadFile, SKILL_FILE } from './read-ahead-protocol.js'
import { type CappedFile, childPath, type FileIdentity } from './skill-fs.js'

/** One batch's buffer of file bytes, and how many of its files are not done with yet. */
interface Batch {
  readonly buffer: ArrayBuffer
  pending: number
}

/** The file the walk will read next: the SKILL.md of the skill folder it took last. */
interface Current {
  readonly path: string
  readonly bytes: Uint8Array
  readonly seen: ReadAheadFile
  readonly batch: Batch
}

/**
 * The walk's side of the SKILL.md files the worker read ahead: hands each
 * to the loader's `readCapped` when it is the file asked for and passes the
 * same checks, and gives each batch's buffer back once every file in it is
 * done with, so the worker fills it again instead of allocating (a fresh
 * buffer per batch made the walk's thread collect garbage ten times as
 * often). A file's bytes stay valid until the walk takes its next folder:
 * `readCapped`'s `transient` contract. A caller that keeps them (not
 * transient) gets a copy.
 */
export class AheadFiles {
  readonly #batches = new WeakMap<ReadAheadAnswer, Batch>()
  #current: Current | undefined
  /** The batch of the file read last: done with once the walk takes its next folder. */
  #read: Batch | undefined
  #free: ArrayBuffer[] = []
  #taken = 0

  /** Files handed to the loader. */
  get taken(): number {
    return this.#taken
  }

  /** A batch arrived: each answer with a file points at its buffer. */
  received(answers: readonly ReadAheadAnswer[], buffer: ArrayBuffer | undefined): void {
    if (buffer === undefined) return
    const batch: Batch = { buffer, pending: 0 }
    for (const answer of answers) {
      if (answer.file === undefined) continue
      batch.pending++
      this.#batches.set(answer, batch)
    }
  }

  /** The walk took `answer`, the folder at `dir`: its file is the one to read next; the last one is done with. */
  took(dir: string, answer: ReadAheadAnswer): void {
    this.#settle()
    const file = answer.file
    const batch = file && this.#batches.get(answer)
    if (file === undefined || batch === undefined) return
    const bytes = new Uint8Array(batch.buffer, file.offset, file.size)
    this.#current = { path: childPath(dir, SKILL_FILE), bytes, seen: file, batch }
  }

  /** The walk went past `answer` without taking it. */
  dropped(answer: ReadAheadAnswer): void {
    const batch = this.#batches.get(answer)
    if (batch !== undefined) this.#release(batch)
  }

  /**
   * The file at `path` as read ahead, when it is the next one and passes
   * `readCapped`'s checks (`maxBytes`, the identity `expected`); undefined
   * otherwise, and the walk reads it itself, for the error as it stands.
   */
  read(
    path: string,
    maxBytes: number,
    expected: FileIdentity | undefined,
    transient: boolean | undefined,
  ): CappedFile | undefined {
    const current = this.#current
    if (current === undefined || current.path !== path) return undefined
    this.#current = undefined
    this.#read = current.batch
    const { size, mtimeMs, ctimeMs, ino } = current.seen
    const same =
      expected === undefined ||
      (expected.ino === ino &&
        expected.size === size &&
        expected.mtimeMs === mtimeMs &&
        expected.ctimeMs === ctimeMs)
    if (!same || size > maxBytes) return undefined
    this.#taken++
    const bytes = transient === true ? current.bytes : current.bytes.slice()
    return { bytes, size, mtimeMs, ctimeMs, ino }
  }

  /** Buffers every file of which is done with, to give back to the worker. */
  free(): ArrayBuffer[] {
    const free = this.#free
    this.#free = []
    return free
  }

  /** Forgets everything: the worker is gone. */
  clear(): void {
    this.#current = undefined
    this.#read = undefined
    this.#free = []
  }

  /** The walk moved on: the file read last (or not read) is done with. */
  #settle(): void {
    if (this.#read !== undefined) this.#release(this.#read)
    if (this.#current !== undefined) this.#release(this.#current.batch)
    this.#read = undefined
    this.#current = undefined
  }

  #release(batch: Batch): void {
    if (--batch.pending === 0) this.#free.push(batch.buffer)
  }
}
