import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Retrievable } from './retrievable.js'
import {
  describeSpooled,
  newSpoolId,
  SPOOL_ID_PATTERN,
  type SpoolContent,
  type SpoolMeta,
  type SpoolStore,
} from './spool-store.js'

/**
 * A `SpoolStore` in a directory: `<id>.bin` holds the bytes and `<id>.json`
 * the record. Writes go through a temporary name and a rename, so a reader
 * never sees half an item. Ids are checked against `SPOOL_ID_PATTERN` before
 * they touch the filesystem, so a model-supplied id cannot name another path.
 */
export class FileSpoolStore implements SpoolStore {
  readonly directory: string
  #ready: Promise<void> | undefined

  constructor(options: { directory: string }) {
    this.directory = options.directory
  }

  #ensure(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(() => undefined)
    return this.#ready
  }

  async put(content: SpoolContent, meta?: SpoolMeta): Promise<Retrievable> {
    await this.#ensure()
    const id = newSpoolId()
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
    const record = describeSpooled(id, bytes, meta)
    const base = join(this.directory, id)
    await writeFile(`${base}.bin.tmp`, bytes, { mode: 0o600 })
    await rename(`${base}.bin.tmp`, `${base}.bin`)
    await writeFile(`${base}.json.tmp`, JSON.stringify(record), { mode: 0o600 })
    await rename(`${base}.json.tmp`, `${base}.json`)
    return record
  }

  async get(id: string): Promise<Uint8Array | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    try {
      return new Uint8Array(await readFile(join(this.directory, `${id}.bin`)))
    } catch {
      return undefined
    }
  }

  async stat(id: string): Promise<Retrievable | undefined> {
    if (!SPOOL_ID_PATTERN.test(id)) return undefined
    try {
      const record = JSON.parse(
        await readFile(join(this.directory, `${id}.json`), 'utf8'),
      ) as Retrievable
      return Object.freeze({ ...record, provenance: Object.freeze({ ...record.provenance }) })
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
    await rm(this.directory, { recursive: true, force: true })
  }

  async delete(id: string): Promise<boolean> {
    if (!SPOOL_ID_PATTERN.test(id)) return false
    const existed = (await this.stat(id)) !== undefined
    await rm(join(this.directory, `${id}.json`), { force: true })
    await rm(join(this.directory, `${id}.bin`), { force: true })
    return existed
  }
}
