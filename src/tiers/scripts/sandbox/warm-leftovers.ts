import { constants, readFileSync, readlinkSync } from 'node:fs'
import { type FileHandle, open, readdir, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { at, openChildDir, removeBeneath } from '../../../common/door/beneath.js'
import { procStatFields } from './proc-stat.js'

/**
 * Who made a warm sandbox's host folder, as its name says: the boot, the
 * pid namespace, the pid and that process's start time (clock ticks after
 * boot). Together they name one process for ever: a pid reused later has
 * another start time, and a reboot another boot id.
 */
export interface WarmFolderOwner {
  /** `/proc/sys/kernel/random/boot_id` without its dashes (32 hex digits). */
  readonly boot: string
  /** The inode of the owner's pid namespace (`/proc/self/ns/pid`). */
  readonly pidNamespace: string
  readonly pid: number
  /** Field 22 of the owner's `/proc/<pid>/stat`. */
  readonly startTime: string
}

/** What starts every warm sandbox folder's name, before its owner. */
export const WARM_FOLDER_PREFIX = 'skillhost-warm-'

const NAME = /^skillhost-warm-([0-9a-f]{32})-(\d{1,20})-(\d{1,10})-(\d{1,20})-[A-Za-z0-9]{6}$/

/** The start time of process `pid` as this process sees it; undefined when there is none. */
function startTimeOf(pid: number | 'self'): string | undefined {
  return procStatFields(pid)?.[19]
}

let self: WarmFolderOwner | null | undefined

function readOwner(): WarmFolderOwner | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1')
      .trim()
      .replaceAll('-', '')
    const pidNamespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]
    const startTime = startTimeOf('self')
    if (!/^[0-9a-f]{32}$/.test(boot) || pidNamespace === undefined) return undefined
    if (startTime === undefined || !/^\d+$/.test(startTime)) return undefined
    return { boot, pidNamespace, pid: process.pid, startTime }
  } catch {
    return undefined
  }
}

/** This process as the owner of the warm folders it makes (read once); undefined when `/proc` cannot say. */
export function thisWarmOwner(): WarmFolderOwner | undefined {
  if (self === undefined) self = readOwner() ?? null
  return self ?? undefined
}

/**
 * The name before `mkdtemp`'s six characters of the warm folders `owner`
 * makes. Without an owner (a process `/proc` cannot name), a prefix no
 * sweep ever takes: such a folder may be left behind, but never removed
 * under a live host.
 */
export function warmFolderPrefix(owner: WarmFolderOwner | undefined = thisWarmOwner()): string {
  if (owner === undefined) return `${WARM_FOLDER_PREFIX}unowned-`
  return `${WARM_FOLDER_PREFIX}${owner.boot}-${owner.pidNamespace}-${owner.pid}-${owner.startTime}-`
}

/**
 * Whether the owner a warm folder's name gives is gone for sure: it ran in
 * an earlier boot, or in this boot and this pid namespace with no process
 * of that pid and start time left. A name this process cannot judge (not
 * a warm folder's, another pid namespace's, or this process cannot name
 * itself) is never gone.
 */
export function warmOwnerGone(
  name: string,
  me: WarmFolderOwner | undefined = thisWarmOwner(),
): boolean {
  const parsed = NAME.exec(name)
  if (parsed === null || me === undefined) return false
  const [, boot, pidNamespace, pid, startTime] = parsed as unknown as string[]
  if (boot !== me.boot) return true
  if (pidNamespace !== me.pidNamespace) return false
  return startTimeOf(Number(pid)) !== startTime
}

/** What one `sweepWarmLeftovers` did. */
export interface WarmSweepResult {
  /** Names of the folders removed. */
  readonly removed: readonly string[]
  /** Names with a gone owner left in place: not a folder (a symlink is never followed), not this uid's, or not removable. */
  readonly left: readonly string[]
}

/**
 * Removes the host folders of warm sandboxes whose host died without
 * removing them (SIGKILL, a crash): each entry of `dir` (the temp folder)
 * named as a warm folder whose owner is gone (`warmOwnerGone`), opened by
 * descriptor without following a link, owned by this process's uid, and
 * emptied and removed from that descriptor (`removeBeneath`: a link inside
 * is removed, never followed). A live owner's folder, a link, and another
 * uid's folder are left alone; a folder that vanishes meanwhile is no error.
 */
export async function sweepWarmLeftovers(dir: string = tmpdir()): Promise<WarmSweepResult> {
  const removed: string[] = []
  const left: string[] = []
  // The temp folder is the deployer's (TMPDIR); held by descriptor from here on.
  const root = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    for (const name of await readdir(at(root))) {
      if (!name.startsWith(WARM_FOLDER_PREFIX) || !warmOwnerGone(name)) continue
      // Another sweeper (a second host starting) may be removing the same folder.
      const outcome = await removeIfOurs(root, name).catch(() => 'left' as const)
      if (outcome === 'removed') removed.push(name)
      else if (outcome === 'left') left.push(name)
    }
  } finally {
    await root.close()
  }
  return { removed, left }
}

async function removeIfOurs(root: FileHandle, name: string): Promise<'removed' | 'left' | 'gone'> {
  const folder = await openChildDir(root, name).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? ('gone' as const) : ('left' as const),
  )
  if (typeof folder === 'string') return folder
  try {
    if ((await folder.stat()).uid !== process.geteuid?.()) return 'left'
    for (const entry of await readdir(at(folder))) await removeBeneath(folder, entry)
  } finally {
    await folder.close()
  }
  // By name in the held temp folder: a folder swapped in meanwhile is not empty, and stays.
  await rmdir(at(root, name)).catch(() => undefined)
  return 'removed'
}
