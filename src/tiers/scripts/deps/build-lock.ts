import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { noteCallProgress } from '../../../common/call-progress.js'
import { SkillHostError } from '../../../common/errors.js'

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
 * A step of taking a stale lock that another taker's steps undid: the
 * folder made was removed before its owner file was written (`ENOENT`), or
 * an owner file was written into the folder being removed (`ENOTEMPTY`).
 */
function lostRace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTEMPTY'
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
 * judging one stale lock cost a second build, never a wrong one, and a
 * taker whose steps another judge's undid (`lostRace`) finds the lock
 * `held`, never a failure (`build-lock.test.ts` races it).
 */
export async function takeBuildLock(lock: string): Promise<'taken' | 'held'> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await mkdir(lock)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const owner = await ownerOf(lock)
      if (owner === undefined || owner.host !== hostname() || alive(owner.pid)) return 'held'
      try {
        await rm(lock, { recursive: true, force: true })
      } catch (err) {
        // A taker wrote its owner file into the folder being removed: theirs now.
        if (lostRace(err)) return 'held'
        throw err
      }
      continue
    }
    const owner: LockOwner = { pid: process.pid, host: hostname() }
    try {
      await writeFile(join(lock, OWNER_FILE), JSON.stringify(owner))
    } catch (err) {
      // Another taker judged the same stale lock and removed the one just made: theirs now.
      if (lostRace(err)) return 'held'
      throw err
    }
    return 'taken'
  }
  return 'held'
}

/** Gives the lock up (its owner file with it). */
export async function releaseBuildLock(lock: string): Promise<void> {
  await rm(lock, { recursive: true, force: true }).catch(() => undefined)
}

/** How long one build step may take, and how long a second builder waits for the first. */
export const BUILD_TIMEOUT_MS = 10 * 60_000

/**
 * `E_SKILL_WORKSPACE_FAILED`: the env cache itself failed (a lock, a
 * folder, a rename). The message is model-safe; `why` is person text.
 */
export function cacheFailed(why: string, cause?: unknown): SkillHostError {
  return new SkillHostError(
    'E_SKILL_WORKSPACE_FAILED',
    "A script environment could not be built; the host operator can see why in the host's log.",
    { cause, person: why },
  )
}

/**
 * What `read` finds once it is ready, or undefined once this process holds
 * the build lock at `lock` (the caller then builds and releases it): waits
 * for another builder up to `BUILD_TIMEOUT_MS`, polling, and says so to the
 * waiting call. The one wait of every cache entry (environments, installers).
 */
export async function readyOrLocked<T>(
  read: () => Promise<T | undefined>,
  lock: string,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  const deadline = Date.now() + BUILD_TIMEOUT_MS
  let waited = false
  for (;;) {
    signal?.throwIfAborted()
    const ready = await read()
    // A call waiting on another builder (one started at load) says so, as the builder's own call does.
    if (waited) noteCallProgress(undefined)
    if (ready !== undefined) return ready
    let taken: 'taken' | 'held'
    try {
      taken = await takeBuildLock(lock)
    } catch (err) {
      throw cacheFailed(`cannot take the build lock ${lock}: ${String(err)}`, err)
    }
    if (taken === 'taken') return undefined
    if (Date.now() > deadline) throw cacheFailed(`another build holds ${lock}`)
    noteCallProgress('building a python environment')
    waited = true
    await sleep(250)
  }
}
