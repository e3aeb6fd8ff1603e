import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { at, O_PATH, openDirBeneath, openRoot } from '../../../common/door/beneath.js'
import type { PolicyGrant } from '../policy/policy.js'
import { openProtectedEntries, type ProtectedEntry } from '../workspace/protected-entries.js'
import { WORKSPACE_MAX_DEPTH } from '../workspace/workspace-errors.js'

/** Entries a granted write folder's walk for version-control state visits at most. */
const GRANT_WALK_ENTRIES = 50_000

/** A call's granted paths, held open: what it binds, from which descriptor. */
export interface OpenedGrant {
  /** The grant reduced to the paths that were opened (the rest are not bound at all). */
  readonly grant: PolicyGrant
  /** Descriptor by normalized host path, for `SandboxRunRequest.grantedFds`. */
  readonly fds: ReadonlyMap<string, number>
  /**
   * The version-control state inside each granted write folder (any depth,
   * `openProtectedEntries`), for `SandboxRunRequest.readOnlyFds`: bound
   * read-only over the grant at its host path (where grants are shown).
   */
  readonly readOnly: readonly { readonly fd: number; readonly sandbox: string }[]
  close(): Promise<void>
}

/**
 * Opens one absolute, normalized path from `/` a component at a time, each
 * folder by descriptor with `O_NOFOLLOW` and the last with `O_PATH |
 * O_NOFOLLOW`: undefined when any component is a symlink, missing or not
 * reachable, or the entry itself is neither a folder nor a regular file.
 */
async function openNoFollow(path: string): Promise<FileHandle | undefined> {
  const parts = path.split('/').filter((p) => p !== '')
  const last = parts.pop()
  let root: FileHandle | undefined
  let dir: FileHandle | undefined
  try {
    root = await openRoot('/')
    if (last === undefined) return root
    dir = await openDirBeneath(root, parts)
    const entry = await open(at(dir, last), O_PATH | constants.O_NOFOLLOW)
    const st = await entry.stat()
    if (st.isDirectory() || st.isFile()) return entry
    await entry.close()
    return undefined
  } catch {
    return undefined
  } finally {
    if (dir !== undefined && dir !== root) await dir.close().catch(() => undefined)
    if (root !== undefined && last !== undefined) await root.close().catch(() => undefined)
  }
}

/**
 * Opens every path of `grant` without following a symlink anywhere on the
 * way (see `openNoFollow`), so a symlink put in a granted name before the
 * call is never bound. (bwrap 0.8 binds a descriptor by reading its current
 * path back and mounting that, so a swap of a parent in the microseconds
 * between those two is not excluded; docs/security.md.) A path that cannot be opened so (missing, reached through a
 * symlink, a device) is left out of the call: never bound by name instead.
 * The caller closes the result once the sandbox has started.
 */
export async function openGrantedPaths(grant: PolicyGrant): Promise<OpenedGrant> {
  const paths = [...new Set([...grant.read, ...grant.write])]
  // Side by side: each walk holds only its own descriptors.
  const opened = await Promise.all(paths.map(openNoFollow))
  const handles = new Map<string, FileHandle>()
  paths.forEach((path, i) => {
    const handle = opened[i]
    if (handle !== undefined) handles.set(path, handle)
  })
  const guarded: ProtectedEntry[] = []
  try {
    for (const path of grant.write) {
      const held = handles.get(path)
      if (held !== undefined) guarded.push(...(await protectedInside(held, path)))
    }
  } catch (err) {
    for (const h of [...handles.values(), ...guarded.map((e) => e.handle)])
      await h.close().catch(() => undefined)
    throw err
  }
  return {
    grant: {
      read: grant.read.filter((p) => handles.has(p)),
      write: grant.write.filter((p) => handles.has(p)),
    },
    fds: new Map([...handles].map(([path, h]) => [path, h.fd])),
    readOnly: guarded.map((e) => ({ fd: e.handle.fd, sandbox: e.sandbox })),
    async close() {
      for (const h of [...handles.values(), ...guarded.map((e) => e.handle)])
        await h.close().catch(() => undefined)
    },
  }
}

/** The door's rule for a granted write folder: its version-control state stays read-only. */
async function protectedInside(held: FileHandle, path: string): Promise<ProtectedEntry[]> {
  if (!(await held.stat()).isDirectory()) return []
  const dir = await openDirBeneath(held, [])
  try {
    return await openProtectedEntries(dir, path, path === '/' ? '' : path, {
      maxEntries: GRANT_WALK_ENTRIES,
      maxDepth: WORKSPACE_MAX_DEPTH,
    })
  } finally {
    await dir.close()
  }
}
