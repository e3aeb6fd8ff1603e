import type { FileHandle } from 'node:fs/promises'
import { openDirBeneath, removeBeneath, type TreeEntry } from '../../../common/door/beneath.js'
import type { DoorRefusal } from '../../../common/door/copy-out.js'
import { isProtectedName } from '../../../common/door/protected-names.js'

/** The reason given for a version-control entry a call made and the host removed. */
export const SWEPT_REASON =
  'version-control state a call made in a deployer folder (git or hg would run what it holds on the host); removed'

/**
 * The topmost version-control entries (`.git`, `.hg`, `.svn` by
 * `isProtectedName`, at any depth) in `after` that were not in `before`:
 * what one call made. One that was there before, under this path or moved
 * (a script may rename its parent; the entry itself is a mount point), is
 * known by its identity (`walkBeneath` tags such folders with device and
 * inode) and never counted as new.
 */
export function newVersionControl(
  before: ReadonlyMap<string, TreeEntry>,
  after: ReadonlyMap<string, TreeEntry>,
): string[] {
  const known = new Set<string>()
  for (const [path, e] of before)
    if (e.changeTag !== '' && isProtectedName(path.slice(path.lastIndexOf('/') + 1)))
      known.add(e.changeTag)
  const found = new Set<string>()
  for (const path of after.keys()) {
    const parts = path.split('/')
    const at = parts.findIndex(isProtectedName)
    if (at === -1) continue
    const top = parts.slice(0, at + 1).join('/')
    const now = after.get(top)
    const was = before.get(top)
    if (now === undefined || (was?.kind === now.kind && was.changeTag === now.changeTag)) continue
    if (now.changeTag !== '' && known.has(now.changeTag)) continue
    found.add(top)
  }
  return [...found].sort()
}

/**
 * Removes each of `paths` below the held `root` by descriptor
 * (`removeBeneath`, never through a symlink) and says so per path; a path
 * that cannot be removed is reported as left, never silently.
 */
export async function sweepVersionControl(
  root: FileHandle,
  paths: readonly string[],
): Promise<DoorRefusal[]> {
  const out: DoorRefusal[] = []
  for (const path of paths) {
    const parts = path.split('/')
    const name = parts.pop() as string
    try {
      const parent = await openDirBeneath(root, parts)
      try {
        await removeBeneath(parent, name)
      } finally {
        await parent.close()
      }
      out.push({ path, reason: SWEPT_REASON })
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error'
      out.push({
        path,
        reason: `version-control state a call made; it could not be removed (${code})`,
      })
    }
  }
  return out
}
