import { accessSync, constants } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { normalizeAbsolutePath } from '../policy/policy.js'
import type { HostPathFact } from './bwrap-args.js'
import { unavailable } from './run-request.js'
import { blockedAncestor, type HostIdentity } from './sandbox-host-user.js'

/** A read entry the sandbox's host user cannot reach, and the empty folder it is bound onto for the call. */
export interface StagedRead {
  readonly host: string
  readonly stage: string
}

/**
 * The read entries (folders) of a call that `identity` cannot reach by path
 * (a folder above them it cannot search, such as a 0700 `/root`),
 * normalized, each once, in policy order. The policy already grants them;
 * the host user's own permissions only decide how they are bound: from a
 * stage (`stageUnreachableReads`, or a warm sandbox's own stage folders).
 * (bwrap resolves even a `--ro-bind-fd` source by path, as its own user, so
 * a descriptor is no way in.) None without an identity of its own.
 */
export async function unreachableReads(
  allowRead: readonly string[],
  facts: ReadonlyMap<string, HostPathFact>,
  identity: HostIdentity | undefined,
): Promise<string[]> {
  const found: string[] = []
  if (identity === undefined) return found
  for (const entry of allowRead) {
    const host = normalizeAbsolutePath(entry)
    if (host === undefined || facts.get(host)?.kind !== 'dir') continue
    if (found.includes(host)) continue
    if ((await blockedAncestor(host, identity)) !== undefined) found.push(host)
  }
  return found
}

/**
 * `unreachable` (`unreachableReads`), each given an empty mount point in
 * the call's host scratch, where `stagedCommand` binds it before bwrap
 * starts. Without a host scratch there is nowhere to stage: none (bwrap
 * reports the path as before).
 */
export async function stageUnreachableReads(
  unreachable: readonly string[],
  scratch: string | undefined,
): Promise<StagedRead[]> {
  if (scratch === undefined) return []
  const staged: StagedRead[] = []
  for (const host of unreachable) {
    const stage = join(scratch, '.skillhost-stage', String(staged.length))
    await mkdir(stage, { recursive: true, mode: 0o755 })
    staged.push({ host, stage })
  }
  return staged
}

const STAGE_SCRIPT = [
  'n=$1; shift',
  'while [ "$n" -gt 0 ]; do',
  '  mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 125',
  '  shift 2; n=$((n - 1))',
  'done',
  'exec "$@"',
].join('\n')

function tool(paths: readonly string[]): string {
  for (const p of paths) {
    try {
      accessSync(p, constants.X_OK)
      return p
    } catch {
      // next
    }
  }
  throw unavailable(
    `${paths[0]} is missing; staging an unreachable read path needs util-linux (\`apt-get install util-linux mount\`).`,
  )
}

/**
 * The program and argv that run `bwrapArgv` as `identity` with each staged
 * entry bound read-only onto its mount point first: `unshare` gives the call
 * a private mount namespace (so the binds are seen by nothing else and end
 * with it), `sh` binds, `setpriv` drops to `identity`, then bwrap starts as
 * usual. Only this process's own privilege (root) makes the binds; nothing
 * on the host changes.
 */
export function stagedCommand(
  staged: readonly StagedRead[],
  identity: HostIdentity,
  bwrapArgv: readonly string[],
): { program: string; args: string[] } {
  const unshare = tool(['/usr/bin/unshare', '/bin/unshare'])
  const setpriv = tool(['/usr/bin/setpriv', '/bin/setpriv'])
  return {
    program: unshare,
    args: [
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      STAGE_SCRIPT,
      'sh',
      String(staged.length),
      ...staged.flatMap((s) => [s.host, s.stage]),
      setpriv,
      `--reuid=${identity.uid}`,
      `--regid=${identity.gid}`,
      '--clear-groups',
      '--',
      ...bwrapArgv,
    ],
  }
}

/**
 * How to start bwrap for one call: directly as `hostUser` (the spawn sets
 * the identity), or through `stagedCommand` when it has staged reads (which
 * drops to `hostUser` itself, so the spawn keeps this process's identity).
 */
export function launchCommand(
  bwrapPath: string,
  args: string[],
  staged: readonly StagedRead[],
  hostUser: HostIdentity | undefined,
): { program: string; args: string[]; hostUser: HostIdentity | undefined } {
  if (staged.length === 0 || hostUser === undefined) return { program: bwrapPath, args, hostUser }
  return { ...stagedCommand(staged, hostUser, [bwrapPath, ...args]), hostUser: undefined }
}
