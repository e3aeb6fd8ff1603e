import { randomBytes } from 'node:crypto'
import { chmod, lstat, readdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

// Well under PATH_MAX (4096) even after one more 255-byte name.
const SAFE_PATH_LENGTH = 2_048

/**
 * Removes `path` and everything below it, whatever a script left there:
 * directories without permissions, and chains nested deeper than PATH_MAX
 * (where `fs.rm` fails with ENAMETOOLONG). The walk is iterative; a directory
 * whose path grows past a safe length is first renamed to a short name
 * directly below `path`, so every path it touches stays short. Rejects only
 * when something truly cannot be removed.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true })
    return
  } catch {
    // Fall through: fix permissions and cut deep chains, then remove again.
  }
  const top = await lstat(path).catch(() => undefined)
  if (!top?.isDirectory()) {
    await rm(path, { force: true })
    return
  }
  const pending = [path]
  while (pending.length > 0) {
    const dir = pending.pop() as string
    await chmod(dir, 0o700).catch(() => undefined)
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      let child = join(dir, entry.name)
      if (child.length > SAFE_PATH_LENGTH) {
        const short = join(path, `.cut-${randomBytes(8).toString('hex')}`)
        await rename(child, short)
        child = short
      }
      pending.push(child)
    }
  }
  await rm(path, { recursive: true, force: true })
}
