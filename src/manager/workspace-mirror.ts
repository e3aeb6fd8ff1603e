import { createHash } from 'node:crypto'
import { nameRefusal } from '../common/door/door-names.js'
import { type OutItem, type OutSource, readOut } from '../common/door/read-out.js'
import { SkillHostError } from '../common/errors.js'
import { quoteName } from '../common/escape-text.js'
import { normalizeSkillPath } from '../skill-model/internal.js'
import {
  full,
  type ManagerWorkspace,
  type SessionWorkspace,
  unmeasurable,
} from '../tiers/scripts/tier.js'
import { SerialQueue } from './serial-queue.js'
import type { SessionWorkspaceStore, StoredWorkspaceFile } from './session-state.js'

/** The largest workspace file that follows a session (one stored blob, read whole). */
export const MIRRORED_FILE_MAX_BYTES = 64 * 1024 * 1024
/** Bytes of stored files fetched per round trip while restoring. */
const RESTORE_BATCH_BYTES = 16 * 1024 * 1024
/** Stored files fetched per round trip while restoring (one query each: `blobs`). */
export const RESTORE_BATCH_FILES = 256
/** Linux's bounds on one name and a whole path, in bytes. */
const NAME_MAX_BYTES = 255
const PATH_MAX_BYTES = 4095
const DIGEST = /^[0-9a-f]{64}$/

/** What the store holds of one local file, and the walk tag it had when stored or restored. */
interface Known {
  readonly tag: string
  readonly digest: string
  readonly mode: number
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** `E_WORKSPACE_RESTORE_REFUSED`: the stored workspace is not one the host writes; nothing was written. */
export function restoreRefused(why: string): SkillHostError {
  return new SkillHostError(
    'E_WORKSPACE_RESTORE_REFUSED',
    `The stored workspace of this session was not restored: ${why}. Nothing was written; start a new session.`,
    { data: { reason: why } },
  )
}

/** `E_SKILL_WORKSPACE_FULL` for a file too large to follow the session. */
function tooLargeToStore(path: string, size: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FULL',
    `The workspace file ${quoteName(path)} is ${size} bytes; a file that follows the session to another server process is at most ${MIRRORED_FILE_MAX_BYTES}. Delete or split it.`,
    { data: { bytes: size, maxBytes: MIRRORED_FILE_MAX_BYTES } },
  )
}

/**
 * Keeps one session's workspace in a `SessionWorkspaceStore`, so another
 * server process can restore it. `store` sends only what changed since the
 * last store or restore (a walk's change tags, then sha-256 of what was
 * read): each changed regular file is read through the door (`readOut`:
 * never through a symlink, by descriptor, bounded), so a symlink a script
 * made is not stored, as its target or at all. The store checks the
 * workspace's own caps (`full`, `unmeasurable`) in its transaction: past
 * them nothing is stored. `restore` writes a stored workspace into this
 * process's one, judging every stored name, size and digest first (the
 * door's name rule, the workspace path rule, name and path lengths, counts
 * and bytes), so a refused store writes nothing; files go in through the
 * workspace's descriptor-relative `put`, and each blob is checked against
 * its digest. Calls run one at a time.
 */
export class WorkspaceMirror {
  readonly #store: SessionWorkspaceStore
  readonly #sessionId: string
  readonly #workspace: ManagerWorkspace
  readonly #queue = new SerialQueue()
  #known = new Map<string, Known>()
  /** The store's generation the local files reflect; -1: unknown, catch up at the next `pull`. */
  #generation = -1

  constructor(options: {
    readonly store: SessionWorkspaceStore
    readonly sessionId: string
    readonly workspace: ManagerWorkspace
  }) {
    this.#store = options.store
    this.#sessionId = options.sessionId
    this.#workspace = options.workspace
  }

  /** Stores what changed in the workspace; resolves to how many files were sent and dropped. */
  store(): Promise<{ readonly put: number; readonly removed: number }> {
    return this.#queue.run(() => this.#storeNow())
  }

  /** Writes the stored workspace into this one; resolves to how many files it wrote. */
  restore(): Promise<number> {
    return this.#queue.run(async () => this.#bringIn(await this.#store.generation(this.#sessionId)))
  }

  /**
   * Catches up with what another server process stored for the session
   * while this one held it (one query when nothing changed): stored files
   * that differ from what this process last stored or fetched are written,
   * names the store dropped are removed. Resolves to how many files it wrote.
   */
  pull(): Promise<number> {
    return this.#queue.run(async () => {
      const generation = await this.#store.generation(this.#sessionId)
      return generation === this.#generation ? 0 : this.#bringIn(generation)
    })
  }

  async #storeNow(): Promise<{ put: number; removed: number }> {
    const ws = await this.#workspace.open()
    const { entries, complete } = await ws.snapshot()
    if (!complete) throw unmeasurable(ws.maxEntries)
    const items: OutItem[] = []
    const present = new Set<string>()
    for (const [path, e] of entries) {
      // Only regular files under names the door lets out follow the session.
      if (e.kind !== 'file' || nameRefusal(path) !== undefined) continue
      present.add(path)
      if (this.#known.get(path)?.tag !== e.changeTag)
        items.push({ path, kind: 'file', size: e.size })
    }
    const remove = [...this.#known.keys()].filter((p) => !present.has(p))
    if (items.length === 0 && remove.length === 0) return { put: 0, removed: 0 }
    const read = await this.#readChanged(ws, items)
    const put: (StoredWorkspaceFile & { bytes: Uint8Array })[] = []
    const known = new Map(this.#known)
    for (const { path, bytes, mode } of read) {
      const tag = entries.get(path)?.changeTag ?? ''
      const digest = sha256(bytes)
      const before = known.get(path)
      known.set(path, { tag, digest, mode })
      if (before?.digest !== digest || before.mode !== mode)
        put.push({ path, digest, size: bytes.byteLength, mode, bytes })
    }
    for (const path of remove) known.delete(path)
    if (put.length > 0 || remove.length > 0) {
      const generation = await this.#store.commit(this.#sessionId, {
        put,
        remove,
        check: ({ files, bytes }) => {
          if (bytes > ws.maxBytes) throw full(bytes, ws.maxBytes)
          if (files > ws.maxEntries) throw unmeasurable(ws.maxEntries)
        },
      })
      // Another process committed in between: catch up at the next pull.
      this.#generation = generation === this.#generation + 1 ? generation : -1
    }
    this.#known = known
    return { put: put.length, removed: remove.length }
  }

  /**
   * The changed files' bytes and modes, read through the door. A file past
   * `MIRRORED_FILE_MAX_BYTES` refuses the store; one that vanished, grew
   * while read, or is a second name of a hard-linked file is left for the
   * next store.
   */
  async #readChanged(
    ws: SessionWorkspace,
    items: readonly OutItem[],
  ): Promise<{ path: string; bytes: Uint8Array; mode: number }[]> {
    for (const item of items)
      if ((item.size ?? 0) > MIRRORED_FILE_MAX_BYTES)
        throw tooLargeToStore(item.path, item.size ?? 0)
    const modes = new Map<string, number>()
    const source: OutSource = {
      read: async (path, maxBytes) => {
        const got = await ws.get(path, maxBytes)
        modes.set(path, got.mode)
        return got
      },
    }
    const limits = { files: ws.maxEntries, bytes: ws.maxBytes, fileBytes: MIRRORED_FILE_MAX_BYTES }
    const judged = await readOut(items, source, { limits })
    const out: { path: string; bytes: Uint8Array; mode: number }[] = []
    for (const r of judged)
      if (r.refused === undefined)
        out.push({ path: r.item.path, bytes: r.bytes, mode: modes.get(r.item.path) ?? 0o644 })
    return out
  }

  /**
   * Brings the local workspace to the stored one of `generation` (judged
   * whole first). Blobs come in batches bounded by count and bytes, one
   * query each; a batch is checked whole before any of it is written, and a
   * refusal or failure in a later batch removes what this restore created,
   * so a refused restore leaves no file it wrote.
   */
  async #bringIn(generation: number): Promise<number> {
    const ws = await this.#workspace.open()
    const stored = await this.#store.manifest(this.#sessionId, ws.maxEntries)
    const files = judgeStored(stored, ws)
    const wanted = files.filter((f) => {
      const k = this.#known.get(f.path)
      return k?.digest !== f.digest || k.mode !== f.mode
    })
    const before = wanted.length > 0 ? (await ws.snapshot()).entries : new Map()
    const written: string[] = []
    try {
      for (const batch of batches(wanted)) {
        const blobs = await this.#store.blobs([...new Set(batch.map((f) => f.digest))])
        const ready = batch.map((f) => ({ file: f, bytes: checkedBlob(f, blobs.get(f.digest)) }))
        for (const { file, bytes } of ready) {
          await ws.put(file.path, bytes, { executable: (file.mode & 0o111) !== 0 })
          written.push(file.path)
        }
      }
    } catch (err) {
      await removeCreated(ws, written, before)
      throw err
    }
    const names = new Set(files.map((f) => f.path))
    for (const path of this.#known.keys()) if (!names.has(path)) await ws.remove(path)
    const { entries } = await ws.snapshot()
    const known = new Map<string, Known>()
    for (const f of files) {
      const tag = entries.get(f.path)?.changeTag
      if (tag !== undefined) known.set(f.path, { tag, digest: f.digest, mode: f.mode })
    }
    this.#known = known
    this.#generation = generation
    return written.length
  }
}

/**
 * Removes what a failed restore created: for each written name, its
 * outermost folder (or itself) that was not there before. Best effort: the
 * restore's own error is what the caller gets.
 */
async function removeCreated(
  ws: SessionWorkspace,
  written: readonly string[],
  before: ReadonlyMap<string, unknown>,
): Promise<void> {
  const created = new Set<string>()
  for (const path of written) {
    const parts = path.split('/')
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/')
      if (before.has(prefix)) continue
      created.add(prefix)
      break
    }
  }
  for (const path of created) await ws.remove(path).catch(() => undefined)
}

/** A stored file's bytes, checked against its size and sha-256. */
function checkedBlob(f: StoredWorkspaceFile, bytes: Uint8Array | undefined): Uint8Array {
  if (bytes === undefined) throw restoreRefused(`the bytes of ${quoteName(f.path)} are gone`)
  if (bytes.byteLength !== f.size || sha256(bytes) !== f.digest)
    throw restoreRefused(`the bytes of ${quoteName(f.path)} do not match their digest`)
  return bytes
}

/**
 * The stored files, judged before anything is written: each name by the
 * door's rule (`nameRefusal`) and the workspace's (`normalizeSkillPath`,
 * in its own spelling), within Linux's name and path lengths, no file where
 * another needs a folder; digests, sizes and modes well formed; counts and
 * bytes within the workspace's caps. Any refusal refuses the whole restore.
 */
function judgeStored(
  stored: readonly StoredWorkspaceFile[],
  ws: { readonly maxEntries: number; readonly maxBytes: number },
): StoredWorkspaceFile[] {
  if (stored.length > ws.maxEntries)
    throw restoreRefused(`it holds more than ${ws.maxEntries} files`)
  let total = 0
  const names = new Set<string>()
  for (const f of stored) {
    const why = storedFileRefusal(f)
    if (why !== undefined) throw restoreRefused(why)
    total += f.size
    names.add(f.path)
  }
  if (total > ws.maxBytes) throw restoreRefused(`it holds more than ${ws.maxBytes} bytes`)
  for (const path of names) {
    const parts = path.split('/')
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/')
      if (names.has(folder))
        throw restoreRefused(`${quoteName(folder)} is both a file and a folder of it`)
    }
  }
  return [...stored]
}

/** Why one stored file is refused, or undefined. */
function storedFileRefusal(f: StoredWorkspaceFile): string | undefined {
  const path = typeof f?.path === 'string' ? f.path : ''
  const shown = quoteName(path.slice(0, 120))
  if (path === '') return 'a stored name is empty or not text'
  const door = nameRefusal(path)
  if (door !== undefined) return `the stored name ${shown} is refused: ${door}`
  let canonical: string | undefined
  try {
    canonical = normalizeSkillPath(path)
  } catch {
    canonical = undefined
  }
  if (canonical !== path) return `the stored name ${shown} is not a workspace path`
  const bytes = Buffer.byteLength(path)
  if (bytes > PATH_MAX_BYTES || path.split('/').some((p) => Buffer.byteLength(p) > NAME_MAX_BYTES))
    return `the stored name ${shown} is too long`
  if (typeof f.digest !== 'string' || !DIGEST.test(f.digest))
    return `the digest of ${shown} is malformed`
  if (!Number.isSafeInteger(f.size) || f.size < 0 || f.size > MIRRORED_FILE_MAX_BYTES)
    return `the size of ${shown} is out of bounds`
  if (!Number.isSafeInteger(f.mode) || f.mode < 0 || f.mode > 0o7777)
    return `the mode of ${shown} is malformed`
  return undefined
}

/** `files` in runs of at most `RESTORE_BATCH_FILES` files and `RESTORE_BATCH_BYTES` bytes (a larger file alone). */
function* batches(files: readonly StoredWorkspaceFile[]): Generator<StoredWorkspaceFile[]> {
  let run: StoredWorkspaceFile[] = []
  let bytes = 0
  for (const f of files) {
    if (
      run.length >= RESTORE_BATCH_FILES ||
      (run.length > 0 && bytes + f.size > RESTORE_BATCH_BYTES)
    ) {
      yield run
      run = []
      bytes = 0
    }
    run.push(f)
    bytes += f.size
  }
  if (run.length > 0) yield run
}
