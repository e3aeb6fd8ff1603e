import { basename, dirname } from 'node:path'
import { openRoot, removeBeneath } from '../../../common/door/beneath.js'

/**
 * Removes `path` and everything below it, whatever a script left there:
 * folders without permissions, symlinks swapped in for folders (the link is
 * removed, never its target) and chains nested deeper than PATH_MAX. `path`
 * is a host folder the host made (a private workspace, a skill copy, the
 * sandbox's base); everything below it is removed through held descriptors
 * (`removeBeneath`), so nothing a script did below it can redirect the
 * removal to a host file. Rejects only when something truly cannot be
 * removed; a path already gone is not an error.
 */
export async function removeTree(path: string): Promise<void> {
  const parent = await openRoot(dirname(path)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw err
  })
  if (parent === undefined) return
  try {
    await removeBeneath(parent, basename(path))
  } finally {
    await parent.close()
  }
}
