import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import {
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises'
import { join } from 'node:path'
import { activeMetrics } from './active-metrics.js'
import { trackResource, type Untrack } from './leak-tracker.js'
import type { Retrievable } from './retrievable.js'
import { putIdempotencyKey } from './spool-put-key.js'
import {
  quotaUsage,
  SpoolQuota,
  type SpoolQuotaOptions,
  type SpoolQuotaUsage,
} from './spool-quota.js'
import { resolveSpoolRange, spoolRangeStream } from './spool-range.js'
import {
  describeSpooled,
  newSpoolId,
  reviveSpooled,
  SPOOL_ID_PATTERN,
  type SpoolByteRange,
  type SpoolContent,
  type SpoolMeta,
  type SpoolPutOptions,
  type SpoolStore,
} from './spool-store.js'

const PIECE_BYTES = 256 * 1024

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException)?.code === 'ENOENT'

/**
 * A `SpoolStore` in a directory: `<id>.bin` holds the bytes and `<id>.json`
 * the record. Writes go through a temporary name and a rename, so a reader
 * never sees half an item. Ids are checked against `SPOOL_ID_PATTERN` before
 * they touch the filesystem, so a model-supplied id cannot name another path.
 * An idempotency key is a `k_<sha256 of the key>` file naming the item,
 * created with `link` (atomic, fails when taken), so two processes putting
 * with one key on one directory end with one item.
 *
 * The directory holds at most `maxBytes` bytes and `maxItems` items
 * (`SPOOL_QUOTA_DEFAULTS`: 256 MiB, 10,000); a put past either rejects with
 * `E_SPOOL_FULL`. Usage is counted in this process, starting from what the
 * directory held when the store first used it: two processes writing one
 * directory each keep their own count (`skillhost serve` gives each session
 * its own directory).
 */
export class FileSpoolStore implements SpoolStore {
  readonly directory: string
  readonly #quota: SpoolQuota
  #ready: Promise<void> | undefined
  /** The leak tracker's view of the directory: made by the first put, released by `destroy`. */
  #untrack: Untrack | undefined

  constructor(options: { directory: string } & SpoolQuotaOptions) {
    this.directory = options.directory
    this.#quota = new SpoolQuota(options)
  }

  #ensure(): Promise<void> {
    this.#ready ??= (async () => {
      await mkdir(this.directory, { recursive: true, mode: 0o700 })
      // Items already in the directory count against the quota.
      this.#quota.reset()
      for (const name of await readdir(this.directory)) {
        if (!name.endsWith('.bin') || !SPOOL_ID_PATTERN.test(name.slice(0, -4))) continue
        const size = await stat(join(this.directory, name)).then(
          (s) => s.size,
          () => undefined,
        )
        if (size !== undefined) this.#quota.count(size)
      }
      const dir = this.directory
      this.#untrack ??= trackResource('spool', dir, () => existsSync(dir))
    })()
    return this.#ready
  }

  /** The quota and what counts against it now (after the first put, the directory's items too). */
  get quota(): SpoolQuotaUsage {
    return quotaUsage(this.#quota)
  }

  async put(
    content: SpoolContent,
    meta?: SpoolMeta,
    options?: SpoolPutOptions,
  ): Promise<Retrievable> {
    const key = putIdempotencyKey(options)
    await this.#ensure()
    const keyFile =
      key === undefined
        ? undefined
        : join(this.directory, `k_${createHash('sha256').update(key).digest('hex')}`)
    if (keyFile) {
      const earlier = await this.#keyed(keyFile)
      if (earlier) return earlier
    }
    const id = newSpoolId()
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const record = describeSpooled(id, bytes, meta)
    const base = join(this.directory, id)
    this.#quota.reserve(record.size)
    try {
      await writeFile(`${base}.bin.tmp`, bytes, { mode: 0o600 })
      await rename(`${base}.bin.tmp`, `${base}.bin`)
      await writeFile(`${base}.json.tmp`, JSON.stringify(record), { mode: 0o600 })
      await rename(`${base}.json.tmp`, `${base}.json`)
    } catch (err) {
      this.#quota.release(record.size)
      await rm(`${base}.bin.tmp`, { force: true }).catch(() => undefined)
      await rm(`${base}.bin`, { force: true }).catch(() => undefined)
      throw err
    }
    activeMetrics()?.spoolBytes('file', record.size)
    if (!keyFile) return record
    return (await this.#claim(keyFile, id)) ?? record
  }

  /** The item a key file names, if both exist; a key naming a deleted item is freed. */
  async #keyed(keyFile: string): Promise<Retrievable | undefined> {
    let id: string
    try {
      id = (await readFile(keyFile, 'utf8')).trim()
    } catch (err) {
      if (isMissing(err)) return undefined
      throw err
    }
    const record = await this.stat(id)
    if (!record) await unlink(keyFile).catch(() => undefined)
    return record
  }

  /** Links the key to `id`; when another put took it first, drops `id` and returns theirs. */
  async #claim(keyFile: string, id: string): Promise<Retrievable | undefined> {
    const tmp = join(this.directory, `${id}.key.tmp`)
    await writeFile(tmp, id, { mode: 0o600 })
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await link(tmp, keyFile)
          return undefined
        } catch (err) {
          if ((err as NodeJS.ErrnoException)?.code !== 'EEXIST') throw err
          const winner = await this.#keyed(keyFile)
          if (winner) {
            await this.delete(id)
            return winner
          }
        }
      }
      return undefined
    } finally {
      await rm(tmp, { force: true })
    }
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    try {
      return new Uint8Array(await readFile(join(this.directory, `${id}.bin`)))
    } catch {
      return undefined
    }
  }

  async open(id: string, range?: SpoolByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    let handle: Awaited<ReturnType<typeof open>>
    try {
      handle = await open(join(this.directory, `${id}.bin`), 'r')
    } catch {
      return undefined
    }
    try {
      const resolved = resolveSpoolRange(range, (await handle.stat()).size)
      return spoolRangeStream({
        range: resolved,
        pieceBytes: PIECE_BYTES,
        read: async (offset, length) => {
          const piece = new Uint8Array(length)
          let filled = 0
          while (filled < length) {
            const { bytesRead } = await handle.read(piece, filled, length - filled, offset + filled)
            if (bytesRead === 0) return piece.subarray(0, filled)
            filled += bytesRead
          }
          return piece
        },
        close: () => handle.close(),
      })
    } catch (err) {
      await handle.close()
      throw err
    }
  }

  async stat(id: string): Promise<Retrievable | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    try {
      return reviveSpooled(
        JSON.parse(await readFile(join(this.directory, `${id}.json`), 'utf8')) as Retrievable,
      )
    } catch {
      return undefined
    }
  }

  /**
   * Removes the directory and every item in it (what `skillhost serve` does
   * when a session without a durable spool closes). A later `put` starts a
   * fresh, empty directory. Idempotent.
   */
  async destroy(): Promise<void> {
    this.#ready = undefined
    this.#quota.reset()
    await rm(this.directory, { recursive: true, force: true })
    this.#untrack?.()
    this.#untrack = undefined
  }

  async delete(id: string): Promise<boolean> {
    if (!SPOOL_ID_PATTERN.test(id)) return false
    const record = await this.stat(id)
    await rm(join(this.directory, `${id}.json`), { force: true })
    await rm(join(this.directory, `${id}.bin`), { force: true })
    if (record) this.#quota.release(record.size)
    return record !== undefined
  }
}
