import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { SkillHostError } from '../common/errors.js'

/** A file's bytes plus the stat taken from the same open descriptor. */
export interface CappedFile {
  readonly bytes: Uint8Array
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

/**
 * Reads a regular file of at most `maxBytes`. Opens non-blocking so a FIFO
 * cannot hang the caller, then checks the open descriptor (not the path) is a
 * regular file within the cap: `E_SKILL_SOURCE_TOO_LARGE` when too big,
 * `E_SKILL_SOURCE_FAILED` when not a regular file or unreadable. `label` is the
 * model-safe name used in messages; the host path goes only into `cause`.
 */
export async function readFileCapped(path: string, maxBytes: number, label: string): Promise<CappedFile> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    const stat = await handle.stat()
    if (!stat.isFile()) {
      throw new SkillHostError('E_SKILL_SOURCE_FAILED', `${label} is not a regular file.`)
    }
    if (stat.size > maxBytes) {
      throw new SkillHostError(
        'E_SKILL_SOURCE_TOO_LARGE',
        `${label} is ${stat.size} bytes; the limit is ${maxBytes}. Shrink it or raise the source limit.`,
        { data: { size: stat.size, limit: maxBytes } },
      )
    }
    // Read exactly the size the descriptor reported: a file that grows later
    // changes its stat hash, so the skill's version goes stale anyway.
    const buffer = new Uint8Array(stat.size)
    let filled = 0
    while (filled < buffer.byteLength) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, null)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return { bytes: buffer.subarray(0, filled), size: filled, mtimeMs: stat.mtimeMs, ino: stat.ino }
  } catch (err) {
    if (SkillHostError.isInstance(err)) throw err
    throw new SkillHostError('E_SKILL_SOURCE_FAILED', `${label} could not be read.`, {
      cause: err,
      data: { errno: (err as NodeJS.ErrnoException).code },
    })
  } finally {
    await handle?.close()
  }
}
