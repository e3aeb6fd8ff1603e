import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { SkillHostError } from '../../common/errors.js'
import { MAX_SKILL_LOCK_BYTES, parseSkillLock, type SkillLock } from './skill-lock.js'

// The message never names the file (a host path); the person text does.
function unreadable(message: string, path: string, cause?: unknown): SkillHostError {
  return new SkillHostError('E_INVALID_SKILLS_CONFIG', message, {
    data: { lockfile: true },
    person: `${message} (${path})`,
    ...(cause !== undefined && { cause }),
  })
}

/**
 * Reads and validates a lockfile (`skillhost lock` writes one). Opened
 * non-blocking, so a FIFO cannot hang the read; it must be a regular file of
 * at most `MAX_SKILL_LOCK_BYTES`, checked on the open descriptor before
 * anything is read. Every failure — missing, unreadable, too large, not
 * UTF-8, not JSON, a bad shape — is `E_INVALID_SKILLS_CONFIG`.
 */
export async function readSkillLock(path: string): Promise<SkillLock> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  let bytes: Uint8Array
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
    const s = await handle.stat()
    if (!s.isFile()) throw unreadable('The skill lockfile is not a regular file.', path)
    if (s.size > MAX_SKILL_LOCK_BYTES) {
      throw unreadable(
        `The skill lockfile is ${s.size} bytes; the limit is ${MAX_SKILL_LOCK_BYTES}.`,
        path,
      )
    }
    const buffer = new Uint8Array(s.size)
    let filled = 0
    while (filled < buffer.byteLength) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, null)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    bytes = buffer.subarray(0, filled)
  } catch (err) {
    if (SkillHostError.isInstance(err)) throw err
    const errno = (err as NodeJS.ErrnoException).code ?? 'error'
    throw unreadable(`The skill lockfile could not be read (${errno}).`, path, err)
  } finally {
    await handle?.close()
  }
  return parseSkillLock(bytes)
}
