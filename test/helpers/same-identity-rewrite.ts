import { open, stat, utimes } from 'node:fs/promises'
import { expect } from 'vitest'

/**
 * Hole 3 of issue 35's attack: `content` (as many bytes as the file holds)
 * written over `file` in place, then its mtime put back to `mtime` (the one
 * the file had, set exactly by the test). Fails the test unless size, inode
 * and mtime are what they were: the attack is real only if everything a scan
 * identity holds is unchanged.
 */
export async function rewriteKeepingIdentity(
  file: string,
  content: string,
  mtime: Date,
): Promise<void> {
  const before = await stat(file)
  const handle = await open(file, 'r+')
  try {
    await handle.write(content, 0)
  } finally {
    await handle.close()
  }
  await utimes(file, before.atime, mtime)
  const after = await stat(file)
  expect([after.size, after.ino, after.mtimeMs]).toEqual([before.size, before.ino, before.mtimeMs])
}
