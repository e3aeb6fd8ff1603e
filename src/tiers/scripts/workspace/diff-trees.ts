import type { TreeEntry } from '../../../common/door/beneath.js'

/** One file a call created, changed or deleted. */
export interface TreeChange {
  readonly path: string
  readonly change: 'created' | 'modified' | 'deleted'
  readonly kind: TreeEntry['kind']
  readonly size: number
}

/** What differs between two walks of one tree, regular files and symlinks only, sorted by path. */
export function diffTrees(
  before: ReadonlyMap<string, TreeEntry>,
  after: ReadonlyMap<string, TreeEntry>,
): TreeChange[] {
  const out: TreeChange[] = []
  for (const [path, now] of after) {
    if (now.kind === 'dir') continue
    const was = before.get(path)
    if (was === undefined || was.kind !== now.kind) {
      out.push({ path, change: 'created', kind: now.kind, size: now.size })
    } else if (was.changeTag !== now.changeTag) {
      out.push({ path, change: 'modified', kind: now.kind, size: now.size })
    }
  }
  for (const [path, was] of before) {
    if (was.kind !== 'dir' && after.get(path)?.kind !== was.kind) {
      if (!after.has(path)) out.push({ path, change: 'deleted', kind: was.kind, size: 0 })
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
