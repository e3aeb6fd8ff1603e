import { open } from 'node:fs/promises'
import { MAX_DECLARATION_SOURCE_CHARS } from './read-requirements.js'

/**
 * The first `MAX_DECLARATION_SOURCE_CHARS` bytes of a file of a skill copy,
 * as UTF-8: what every reader of declarations (PEP 723 blocks,
 * `requirements.txt`, SKILL.md install lines, module-level imports) looks
 * at. Reads no more than that, however large the file. Undefined when the
 * file cannot be read (absent, a folder, unreadable): a missing declaration
 * is not an error.
 */
export async function readDeclarationSource(path: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(path, 'r')
    const buffer = Buffer.alloc(MAX_DECLARATION_SOURCE_CHARS)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
      if (bytesRead === 0) break
      length += bytesRead
    }
    return buffer.subarray(0, length).toString('utf8')
  } catch {
    return undefined
  } finally {
    await handle?.close()
  }
}
