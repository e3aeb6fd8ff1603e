import { readdirSync, readlinkSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { procStatFields } from './proc-stat.js'

// A zombie has exited and holds nothing but its pid; it is its parent's to
// reap. The sandbox's init is reparented to the host's pid 1 when bwrap exits,
// and some init processes (e.g. a microVM agent) reap lazily.
// A process whose stat cannot be read is gone: counted as a zombie (not live).
function isZombie(pid: string): boolean {
  const fields = procStatFields(pid)
  return fields === undefined || fields[0] === 'Z'
}

/**
 * Host pids of every live (non-zombie) process in the pid namespace
 * `pid:[inode]`, by scanning `/proc`. Processes that vanish mid-scan, or
 * whose namespace link cannot be read, are skipped. Synchronous on purpose: a
 * few hundred `readlink` calls cost well under a millisecond, far less than
 * as many promise round trips.
 */
export function pidsInNamespace(inode: number): number[] {
  const wanted = `pid:[${inode}]`
  const found: number[] = []
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return found
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0)
    if (code < 48 || code > 57) continue
    try {
      if (readlinkSync(`/proc/${entry}/ns/pid`) === wanted && !isZombie(entry))
        found.push(Number(entry))
    } catch {
      // gone, or not ours to inspect
    }
  }
  return found
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

/**
 * Whether the pid namespace `pid:[inode]` is certainly empty, known from its
 * init alone (`initPid`, bwrap's `child-pid`): the init is gone, no longer in
 * that namespace, or a zombie. When a namespace's init exits, the kernel kills
 * every other process in it and waits until all of them are released before
 * the init becomes a zombie, so nothing in the namespace outlives that moment.
 * (bwrap's own exit is no such proof: it returns as soon as its init reports
 * the command's status, before the init has finished exiting.) Two small reads
 * instead of a scan of `/proc`; when this cannot tell, `reapNamespace` scans.
 */
export function namespaceIsEmpty(inode: number, initPid: number | undefined): boolean {
  if (initPid === undefined) return false
  const pid = String(initPid)
  try {
    if (readlinkSync(`/proc/${pid}/ns/pid`) !== `pid:[${inode}]`) return true
  } catch {
    // No such process: the init was reaped, and the namespace emptied before.
    return true
  }
  return isZombie(pid)
}

/**
 * After a sandbox ended: finds any process still alive in its pid namespace,
 * SIGKILLs it, and waits until the namespace is empty. A process still found
 * after `graceMs` (the kernel's own teardown window) counts as leaked; the
 * return value is that count, expected to be 0. Gives up waiting after
 * `maxWaitMs` but has sent SIGKILL to everything it saw.
 */
export async function reapNamespace(
  inode: number,
  graceMs = 250,
  maxWaitMs = 2_000,
): Promise<number> {
  let pids = pidsInNamespace(inode)
  if (pids.length === 0) return 0
  const start = Date.now()
  let leaked = 0
  // Right after bwrap exits, its init is usually still dying; poll fast
  // first, then back off.
  let delay = 1
  while (pids.length > 0 && Date.now() - start < maxWaitMs) {
    killAll(pids)
    await sleep(delay)
    delay = Math.min(delay * 2, 20)
    pids = pidsInNamespace(inode)
    if (Date.now() - start >= graceMs) leaked = Math.max(leaked, pids.length)
  }
  return leaked
}

/**
 * After bwrap exited on its own: waits until `namespaceIsEmpty` proves the
 * pid namespace empty, which usually takes a few event-loop turns (bwrap's
 * exit kills its init through die-with-parent, and the kernel empties the
 * namespace as the init dies). Checking costs two small reads, not a scan of
 * `/proc`. If that has not happened within `settleMs`, falls back to
 * `reapNamespace` (scan, SIGKILL, wait), so the guarantee is the same: the
 * result is the count of processes that outlived the call, expected 0.
 */
export async function settleNamespace(
  inode: number,
  initPid: number | undefined,
  settleMs = 100,
): Promise<number> {
  if (initPid !== undefined) {
    const start = Date.now()
    for (let turn = 0; Date.now() - start < settleMs; turn++) {
      if (namespaceIsEmpty(inode, initPid)) return 0
      // A few immediate turns first: the init is usually gone by then.
      if (turn < 8) await new Promise((resolve) => setImmediate(resolve))
      else await sleep(1)
    }
  }
  return reapNamespace(inode)
}
