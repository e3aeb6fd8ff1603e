import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'

/** Who holds a build lock: written inside the lock folder once it is taken. */
interface LockOwner {
  readonly pid: number
  readonly host: string
}

const OWNER_FILE = 'owner.json'

/** False only when `pid` is certainly gone: no such process (ESRCH). A process of another user is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

async function ownerOf(lock: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(join(lock, OWNER_FILE), 'utf8')) as LockOwner
    return Number.isSafeInteger(owner.pid) && owner.pid > 0 && typeof owner.host === 'string'
      ? owner
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Takes the build lock folder `lock` for this process: `taken` when it is
 * now ours (its owner file names this process and host), `held` when a
 * live builder has it. A lock whose owner was a process of this host that
 * no longer exists (a builder killed mid-build) is removed and taken at
 * once, so a crash does not stall every later build until its timeout. A
 * lock without an owner file yet is being taken: held. The lock only saves
 * duplicate work; the build itself stays correct without it (each builds
 * in its own folder and the first rename wins), so two processes both
 * judging one stale lock cost a second build, never a wrong one.
 */
export async function takeBuildLock(lock: string): Promise<'taken' | 'held'> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await mkdir(lock)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const owner = await ownerOf(lock)
      if (owner === undefined || owner.host !== hostname() || alive(owner.pid)) return 'held'
      await rm(lock, { recursive: true, force: true })
      continue
    }
    const owner: LockOwner = { pid: process.pid, host: hostname() }
    await writeFile(join(lock, OWNER_FILE), JSON.stringify(owner))
    return 'taken'
  }
  return 'held'
}

/** Gives the lock up (its owner file with it). */
export async function releaseBuildLock(lock: string): Promise<void> {
  await rm(lock, { recursive: true, force: true }).catch(() => undefined)
}
