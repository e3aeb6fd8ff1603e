import { type ChildProcess, spawn } from 'node:child_process'
import type { Duplex } from 'node:stream'
import type { SkillHostError } from '../../../common/errors.js'
import type { BwrapDataFile, BwrapFdBind } from './bwrap-args.js'
import { pidsInNamespace, reapNamespace, settleNamespace } from './namespace-reaper.js'
import type { BwrapStatus } from './read-bwrap-status.js'
import { unavailable } from './run-request.js'
import type { HostIdentity } from './sandbox-host-user.js'

// The stages of one bwrap process (BubblewrapHandle.#spawn): start it, end
// it at its deadline or abort, empty its namespace, say why it failed.

/** SIGKILL to bwrap's whole process group (its own, `detached`). */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  } catch {
    child.kill('SIGKILL')
  }
}

/**
 * Spawns bwrap with its extra descriptors: fd 3 its JSON status, fd
 * STARTED_FD the closer's "set up" byte, from FIRST_DATA_FD the minimal
 * /etc (written here, read and closed by bwrap), then the descriptors bwrap
 * binds (--ro-bind-fd, --bind-fd), which it closes after setup. No
 * environment, its own process group (one kill reaches bwrap and its init).
 * stdin is `/dev/null`, or a pipe for a warm sandbox's supervisor.
 */
export function startBwrap(
  command: { program: string; args: string[]; hostUser: HostIdentity | undefined },
  dataFiles: readonly BwrapDataFile[],
  fdBinds: readonly BwrapFdBind[],
  stdin: 'ignore' | 'pipe' = 'ignore',
): ChildProcess {
  const { hostUser } = command
  const child = spawn(command.program, command.args, {
    stdio: [
      stdin,
      'pipe',
      'pipe',
      'pipe',
      'pipe',
      ...dataFiles.map(() => 'pipe' as const),
      ...fdBinds.map((b) => b.hostFd),
    ],
    env: {},
    cwd: '/',
    detached: true,
    ...(hostUser === undefined ? {} : { uid: hostUser.uid, gid: hostUser.gid }),
  })
  for (const file of dataFiles) {
    const pipe = child.stdio[file.fd] as Duplex | null | undefined
    if (!pipe) continue
    // A bwrap that fails before reading closes its end: EPIPE is its error to report, not ours.
    pipe.on('error', () => undefined)
    pipe.end(file.content)
    // Flowing, so the EOF of bwrap's close is seen and the pipe is released.
    pipe.resume()
  }
  return child
}

/** How a run is being ended: by its deadline, by an abort, with which signal last. */
export interface Ending {
  timedOut: boolean
  aborted: boolean
  sent: NodeJS.Signals | null
  stop(): void
}

/**
 * Ends `child` at `timeoutMs` or on `signal`: SIGTERM reaches the command
 * (the namespace's init ignores it), which may exit cleanly; SIGKILL of
 * bwrap's group after `graceMs` ends the rest (at once with no grace or no
 * process to warn), and the post-call reap makes sure the namespace is empty.
 */
export function watchEnding(
  child: ChildProcess,
  status: BwrapStatus,
  graceMs: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Ending {
  let graceTimer: NodeJS.Timeout | undefined
  const terminate = () => {
    if (ending.sent !== null) return
    const inode = status.pidNamespace
    const pids = inode === undefined || graceMs === 0 ? [] : pidsInNamespace(inode)
    if (pids.length === 0) {
      ending.sent = 'SIGKILL'
      killGroup(child)
      return
    }
    ending.sent = 'SIGTERM'
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // already gone
      }
    }
    graceTimer = setTimeout(() => {
      ending.sent = 'SIGKILL'
      killGroup(child)
    }, graceMs)
  }
  const timer = setTimeout(() => {
    ending.timedOut = true
    terminate()
  }, timeoutMs)
  const onAbort = () => {
    ending.aborted = true
    terminate()
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  const ending: Ending = {
    timedOut: false,
    aborted: false,
    sent: null,
    stop() {
      clearTimeout(timer)
      if (graceTimer) clearTimeout(graceTimer)
      signal?.removeEventListener('abort', onAbort)
    },
  }
  return ending
}

/**
 * Makes sure the run's PID namespace is empty and says how many processes
 * had to be killed. bwrap exited on its own: its init is dying with it, and
 * watching the init alone proves the namespace empty. After a kill of ours
 * bwrap did not report an exit: /proc is scanned and every survivor
 * SIGKILLed, as settleNamespace also does when the init lingers.
 */
export function emptyNamespace(status: BwrapStatus, sent: NodeJS.Signals | null): Promise<number> {
  const inode = status.pidNamespace
  if (inode === undefined) return Promise.resolve(0)
  return sent === null && status.exitCode !== undefined
    ? settleNamespace(inode, status.childPid)
    : reapNamespace(inode)
}

/** bwrap could not be spawned at all. */
export function notStarted(err: Error): SkillHostError {
  return unavailable(
    `bwrap could not be started (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    err,
  )
}

/** bwrap ended before the command started: its words go to the person only. */
export function notSetUp(exitCode: number | null, stderr: Uint8Array): SkillHostError {
  return unavailable(
    `bwrap failed to set up the sandbox (exit ${String(exitCode)}). Every path of the policy must exist and be traversable by the sandbox user; check the workspace base directory's permissions.`,
    undefined,
    Buffer.from(stderr).toString('utf8').trim(),
  )
}
