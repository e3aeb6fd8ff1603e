import { stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/** A host identity: the uid and gid a sandbox runs as on the host. */
export interface HostIdentity {
  readonly uid: number
  readonly gid: number
}

/** The uid/gid of `nobody`, the sandbox's host identity when the host runs as root. */
export const NOBODY: HostIdentity = { uid: 65534, gid: 65534 }

/**
 * The host identity bwrap runs as, from a deployer's choice: an explicit
 * identity; `'inherit'` (this process's own, returned as `undefined`); or, by
 * default, `nobody` when this process is root (the kernel never enforces
 * RLIMIT_NPROC on host uid 0, and an escape should not land as root) and this
 * process's own identity otherwise. The bubblewrap handle and the directory
 * workspace both take it from here, so the workspace grants read access to
 * exactly the identity the sandbox has.
 */
export function resolveSandboxHostUser(
  choice: HostIdentity | 'inherit' | undefined,
): HostIdentity | undefined {
  if (choice === 'inherit') return undefined
  return choice ?? (process.getuid?.() === 0 ? NOBODY : undefined)
}

/**
 * The first directory at or above `dir` that `identity` cannot search (no x
 * bit for it as owner, group or other), with its permission bits, or
 * undefined when every one is searchable. `undefined` identity (this
 * process's own) is never checked: the host can already reach its own paths.
 */
export async function blockedAncestor(
  dir: string,
  identity: HostIdentity | undefined,
): Promise<{ readonly path: string; readonly mode: number } | undefined> {
  if (identity === undefined) return undefined
  for (let current = resolve(dir); ; current = dirname(current)) {
    const st = await stat(current)
    const bit = st.uid === identity.uid ? 0o100 : st.gid === identity.gid ? 0o010 : 0o001
    if ((st.mode & bit) === 0) return { path: current, mode: st.mode & 0o777 }
    if (dirname(current) === current) return undefined
  }
}

/**
 * A description of `blockedAncestor(dir, identity)` with the advice that fits
 * host-made folders (the sandbox base: move it with TMPDIR, or open the
 * ancestor), or undefined when every directory is searchable. bwrap binds
 * its sources as that identity, so such a directory would surface later as
 * bwrap's opaque "Can't find source path".
 */
export async function untraversableAncestor(
  dir: string,
  identity: HostIdentity | undefined,
): Promise<string | undefined> {
  const blocked = await blockedAncestor(dir, identity)
  if (blocked === undefined || identity === undefined) return undefined
  return `uid ${identity.uid} cannot traverse ${blocked.path} (mode ${blocked.mode.toString(8)}); put the sandbox base under a directory it can traverse (e.g. TMPDIR=/tmp) or run chmod o+x on it`
}
