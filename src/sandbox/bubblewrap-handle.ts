import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { chown } from 'node:fs/promises'
import { promisify } from 'node:util'
import { redactHostPaths, SkillHostError } from '../common/errors.js'
import { buildBwrapArgs } from './bwrap-args.js'
import { FD_CLOSER_SHELLS } from './close-inherited-fds.js'
import { inspectPolicyPaths } from './inspect-policy-paths.js'
import { reapNamespace } from './namespace-reaper.js'
import { OutputCapture } from './output-capture.js'
import { type BwrapStatus, readBwrapStatus } from './read-bwrap-status.js'
import {
  DEFAULT_SANDBOX_LIMITS,
  resolveLimits,
  unavailable,
  validateRequest,
} from './run-request.js'
import type { SandboxHandle, SandboxLimits, SandboxRunRequest, SandboxRunResult } from './types.js'

export { DEFAULT_SANDBOX_LIMITS }

/** Options of `createBubblewrapHandle`. */
export interface BubblewrapHandleOptions {
  /** Path of `bwrap`; default: the first of /usr/bin, /usr/local/bin, /bin that exists. */
  readonly bwrapPath?: string
  /** Path of util-linux `prlimit`, which applies the limits inside the sandbox; default /usr/bin/prlimit. */
  readonly prlimitPath?: string
  /**
   * Path of the bash that closes every inherited fd above 2 before the
   * command runs; default /usr/bin/bash, then /bin/bash.
   */
  readonly fdCloserShell?: string
  /** The uid/gid the child has inside its user namespace; default 65534 (nobody). */
  readonly sandboxUid?: number
  readonly sandboxGid?: number
  /**
   * The host identity bwrap runs as. Default: 65534/65534 when this process is
   * root (the kernel never enforces RLIMIT_NPROC on host uid 0, and an escape
   * should not land as root), otherwise this process's own identity.
   */
  readonly hostUser?: { readonly uid: number; readonly gid: number } | 'inherit'
  /** Default limits; a request's `limits` override them field by field. */
  readonly limits?: SandboxLimits
}

const INSTALL_HINT =
  'Install it with `apt-get install bubblewrap` (Debian/Ubuntu) or your distribution’s bubblewrap package'

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * A `SandboxHandle` that runs each request under bubblewrap. Probes once at
 * creation (a real sandboxed run of `prlimit --version`) and throws
 * `E_SANDBOX_UNAVAILABLE` naming `apt-get install bubblewrap` when bwrap or
 * prlimit is missing, the platform is not Linux, or user namespaces are
 * unavailable. Each run: fresh namespaces, no network, empty environment plus
 * PATH/HOME/TMPDIR, read-only binds of the read entries, the write entries as
 * the only writable binds, rlimits via prlimit, the whole sandbox killed on
 * timeout or abort, and `/proc` scanned afterwards so nothing outlives the call.
 */
export async function createBubblewrapHandle(
  options: BubblewrapHandleOptions = {},
): Promise<SandboxHandle> {
  if (process.platform !== 'linux') {
    throw unavailable(`bubblewrap needs Linux; this is ${process.platform}.`)
  }
  const bwrapPath =
    options.bwrapPath ??
    ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find(executable) ??
    '/usr/bin/bwrap'
  if (!executable(bwrapPath)) throw unavailable(`bwrap is not installed. ${INSTALL_HINT}.`)
  const prlimitPath = options.prlimitPath ?? '/usr/bin/prlimit'
  if (!executable(prlimitPath)) {
    throw unavailable('prlimit is missing. Install util-linux (`apt-get install util-linux`).')
  }
  const fdCloserShell = options.fdCloserShell ?? FD_CLOSER_SHELLS.find(executable)
  if (fdCloserShell === undefined || !executable(fdCloserShell)) {
    throw unavailable(
      'bash is missing; the sandbox needs it to close inherited file descriptors. Install bash (`apt-get install bash`).',
    )
  }
  let help = ''
  try {
    const out = await promisify(execFile)(bwrapPath, ['--help'], { env: {}, timeout: 5_000 })
    help = out.stdout + out.stderr
  } catch (cause) {
    throw unavailable(`bwrap does not start. ${INSTALL_HINT}.`, cause)
  }
  const hostUser =
    options.hostUser === 'inherit'
      ? undefined
      : (options.hostUser ?? (process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined))
  const handle = new BubblewrapHandle({
    bwrapPath,
    prlimitPath,
    fdCloserShell,
    sandboxUid: options.sandboxUid ?? 65534,
    sandboxGid: options.sandboxGid ?? 65534,
    hostUser,
    disableUserns: help.includes('--disable-userns'),
    limits: options.limits ?? {},
  })
  await handle.probe()
  return handle
}

interface HandleSettings {
  bwrapPath: string
  prlimitPath: string
  fdCloserShell: string
  sandboxUid: number
  sandboxGid: number
  hostUser: { uid: number; gid: number } | undefined
  disableUserns: boolean
  limits: SandboxLimits
}

class BubblewrapHandle implements SandboxHandle {
  readonly #s: HandleSettings
  readonly #running = new Set<ChildProcess>()
  #disposed = false

  constructor(settings: HandleSettings) {
    this.#s = settings
  }

  async probe(): Promise<void> {
    let result: SandboxRunResult
    try {
      result = await this.run({
        argv: [this.#s.prlimitPath, '--version'],
        cwd: '/',
        policy: {
          filesystem: { allowRead: ['/'], denyRead: [], allowWrite: [], denyWrite: [] },
          network: { allowedDomains: [] },
        },
        env: {},
        timeoutMs: 10_000,
        maxOutputBytes: 4_096,
      })
    } catch (cause) {
      const detail = SkillHostError.isInstance(cause) ? cause.message : 'the probe failed to start'
      throw unavailable(`${detail} ${INSTALL_HINT}; user namespaces must be enabled.`, cause)
    }
    if (result.exitCode !== 0) {
      const stderr = Buffer.from(result.stderr).toString('utf8').trim()
      throw unavailable(
        `the probe exited ${String(result.exitCode)} (${redactHostPaths(stderr) || 'no message'}). User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, AppArmor's apparmor_restrict_unprivileged_userns, or a container seccomp profile).`,
      )
    }
  }

  async run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    if (this.#disposed) throw unavailable('the handle has been disposed.')
    if (request.signal?.aborted)
      throw new SkillHostError('E_ABORTED', 'The call was aborted before it started.')
    validateRequest(request, this.#s.prlimitPath, this.#s.fdCloserShell)
    const timeoutMs = Math.max(1, Math.floor(request.timeoutMs))
    const limits = resolveLimits(request.limits, this.#s.limits, timeoutMs)
    const facts = await inspectPolicyPaths(request.policy)
    const hostUser = this.#s.hostUser
    if (hostUser !== undefined) {
      // The sandbox runs as this host identity; hand it the (fresh, per-call) write entries.
      for (const dir of request.policy.filesystem.allowWrite) {
        try {
          await chown(dir, hostUser.uid, hostUser.gid)
        } catch (cause) {
          throw unavailable('a writable path could not be handed to the sandbox user.', cause)
        }
      }
    }
    const args = buildBwrapArgs({
      request,
      limits,
      prlimitPath: this.#s.prlimitPath,
      fdCloserShell: this.#s.fdCloserShell,
      sandboxUid: this.#s.sandboxUid,
      sandboxGid: this.#s.sandboxGid,
      disableUserns: this.#s.disableUserns,
      statusFd: 3,
      facts,
    })
    return this.#spawn(args, request, timeoutMs)
  }

  #spawn(args: string[], request: SandboxRunRequest, timeoutMs: number): Promise<SandboxRunResult> {
    const hostUser = this.#s.hostUser
    const child = spawn(this.#s.bwrapPath, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: {},
      cwd: '/',
      // Its own process group, so one kill reaches bwrap and its init.
      detached: true,
      ...(hostUser === undefined ? {} : { uid: hostUser.uid, gid: hostUser.gid }),
    })
    this.#running.add(child)
    const capture = new OutputCapture(request.maxOutputBytes)
    if (child.stdout) capture.attach('stdout', child.stdout)
    if (child.stderr) capture.attach('stderr', child.stderr)
    const status: BwrapStatus = readBwrapStatus(child.stdio[3])
    let timedOut = false
    let aborted = false
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, timeoutMs)
    const onAbort = () => {
      aborted = true
      kill()
    }
    request.signal?.addEventListener('abort', onAbort, { once: true })

    return new Promise<SandboxRunResult>((resolve, reject) => {
      let spawnError: Error | undefined
      let exitCode: number | null = null
      let closeGuard: NodeJS.Timeout | undefined
      child.once('error', (err) => {
        spawnError = err
      })
      child.once('exit', (code) => {
        exitCode = code
        // A pipe held open past bwrap's exit cannot come from the dead namespace;
        // stop waiting for it after a bounded time.
        closeGuard = setTimeout(() => {
          for (const s of child.stdio) s?.destroy()
        }, 2_000)
        closeGuard.unref()
      })
      child.once('close', async () => {
        clearTimeout(timer)
        if (closeGuard) clearTimeout(closeGuard)
        request.signal?.removeEventListener('abort', onAbort)
        this.#running.delete(child)
        const inode = status.pidNamespace
        const leakedProcesses = inode === undefined ? 0 : await reapNamespace(inode)
        const output = capture.result()
        if (spawnError !== undefined) {
          reject(
            unavailable(
              `bwrap could not be started (${(spawnError as NodeJS.ErrnoException).code ?? 'error'}).`,
              spawnError,
            ),
          )
          return
        }
        if (!timedOut && !aborted && status.childPid === undefined) {
          const text = redactHostPaths(Buffer.from(output.stderr).toString('utf8').trim())
          reject(
            unavailable(
              `bwrap failed to set up the sandbox: ${text || `exit ${String(exitCode)}`}`,
            ),
          )
          return
        }
        const killed = timedOut || aborted
        resolve({
          exitCode: killed ? null : (status.exitCode ?? exitCode),
          signal: killed ? 'SIGKILL' : null,
          timedOut,
          aborted,
          ...output,
          leakedProcesses,
        })
      })
    })
  }

  async dispose(): Promise<void> {
    this.#disposed = true
    for (const child of this.#running) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
}
