import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

// A zombie has exited and holds nothing but its pid; it is its parent's to
// reap. The sandbox's init is reparented to the host's pid 1 when bwrap exits,
// and some init processes (e.g. a microVM agent) reap lazily.
function isZombie(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z'
  } catch {
    return true
  }
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
