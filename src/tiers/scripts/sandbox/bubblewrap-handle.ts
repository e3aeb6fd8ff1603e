import { type ChildProcess, execFile } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { chown } from 'node:fs/promises'
import { promisify } from 'node:util'
import { activeMetrics } from '../../../common/active-metrics.js'
import { SkillHostError } from '../../../common/errors.js'
import { trackResource, type Untrack } from '../../../common/leak-tracker.js'
import {
  type BwrapArgsInput,
  type BwrapDataFile,
  type BwrapFdBind,
  buildBwrapCommand,
} from './bwrap-args.js'
import {
  emptyNamespace,
  killGroup,
  notSetUp,
  notStarted,
  startBwrap,
  watchEnding,
} from './bwrap-process.js'
import { FD_CLOSER_SHELLS, STARTED_FD } from './close-inherited-fds.js'
import { inspectPolicyPaths } from './inspect-policy-paths.js'
import { OutputCapture } from './output-capture.js'
import { type BwrapStatus, readBwrapStatus } from './read-bwrap-status.js'
import {
  DEFAULT_SANDBOX_LIMITS,
  resolveLimits,
  unavailable,
  validateRequest,
} from './run-request.js'
import { type HostIdentity, resolveSandboxHostUser } from './sandbox-host-user.js'
import type { SandboxHandle, SandboxLimits, SandboxRunRequest, SandboxRunResult } from './types.js'
import { launchCommand, stageUnreachableReads, unreachableReads } from './unreachable-reads.js'
import { warmPlan } from './warm-plan.js'
import { WarmPool } from './warm-pool.js'

export { DEFAULT_SANDBOX_LIMITS }

/** Options of `createBubblewrapHandle`. */
export interface BubblewrapHandleOptions {
  /** Path of `bwrap`; default: the first of /usr/bin, /usr/local/bin, /bin that exists. */
  readonly bwrapPath?: string
  /** Ignored (limits are bash `ulimit` builtins now); accepted so old options still type-check. */
  readonly prlimitPath?: string
  /**
   * Path of the bash that applies the limits and closes every inherited fd
   * above 2 before the command runs; default /usr/bin/bash, then /bin/bash.
   */
  readonly fdCloserShell?: string
  /** The uid/gid the child has inside its user namespace; default 65534 (nobody). */
  readonly sandboxUid?: number
  readonly sandboxGid?: number
  /** The host identity bwrap runs as; see `resolveSandboxHostUser` for the default. */
  readonly hostUser?: { readonly uid: number; readonly gid: number } | 'inherit'
  /** Default limits; a request's `limits` override them field by field. */
  readonly limits?: SandboxLimits
  /**
   * On timeout or abort every process in the sandbox first gets SIGTERM, so it
   * can flush and clean up; whatever is still alive this many milliseconds
   * later is SIGKILLed with the whole namespace. Default 1000; 0 kills at once.
   */
  readonly terminationGraceMs?: number
  /**
   * Keep a sandbox set up between calls whose derived policy is the same
   * (docs/security.md, "Warm sandbox"), ending it after this many idle
   * milliseconds and on `dispose`. Unset or 0: every call starts a fresh
   * bwrap. A call that cannot run warm (held descriptors, a staged read)
   * runs cold either way; results are the same.
   */
  readonly warmIdleMs?: number
}

// The first fd after bwrap's status fd (3) and the closer's STARTED_FD.
const FIRST_DATA_FD = STARTED_FD + 1

/** The default of `BubblewrapHandleOptions.terminationGraceMs`. */
export const DEFAULT_TERMINATION_GRACE_MS = 1_000

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
 * creation (a real sandboxed run of `bash --version` under the default
 * limits) and throws `E_SANDBOX_UNAVAILABLE` naming `apt-get install
 * bubblewrap` when bwrap or bash is missing, the platform is not Linux, a
 * limit cannot be applied, or user namespaces are
 * unavailable. Each run: fresh namespaces, no network, empty environment plus
 * PATH/HOME/TMPDIR/LANG, a minimal generated `/etc` (`minimalEtcFiles`: the
 * sandbox user, localhost, files-only nsswitch, no resolver) passed to bwrap
 * on pipes, so nothing lands on disk, read-only binds of the read entries, the write entries as
 * the only writable binds (the request's scratch as a size-capped tmpfs),
 * rlimits via bash `ulimit` (memory as RLIMIT_DATA, see `SandboxLimits`), SIGTERM then SIGKILL of the whole sandbox on timeout
 * or abort, and `/proc` scanned afterwards so nothing outlives the call. A
 * sandbox whose setup fails is `E_SANDBOX_UNAVAILABLE`, never a script exit.
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
  if (!help.includes('--size')) {
    throw unavailable(
      'this bwrap has no --size option (bubblewrap 0.5 or later is needed to cap the scratch tmpfs).',
    )
  }
  const hostUser = resolveSandboxHostUser(options.hostUser)
  const handle = new BubblewrapHandle({
    bwrapPath,
    fdCloserShell,
    sandboxUid: options.sandboxUid ?? 65534,
    sandboxGid: options.sandboxGid ?? 65534,
    hostUser,
    disableUserns: help.includes('--disable-userns'),
    limits: options.limits ?? {},
    graceMs: Math.max(0, Math.floor(options.terminationGraceMs ?? DEFAULT_TERMINATION_GRACE_MS)),
    warmIdleMs: Math.max(0, Math.floor(options.warmIdleMs ?? 0)),
  })
  await handle.probe()
  return handle
}

interface HandleSettings {
  bwrapPath: string
  fdCloserShell: string
  sandboxUid: number
  sandboxGid: number
  hostUser: { uid: number; gid: number } | undefined
  disableUserns: boolean
  limits: SandboxLimits
  graceMs: number
  warmIdleMs: number
}

class BubblewrapHandle implements SandboxHandle {
  readonly #s: HandleSettings
  /** Each running child and its leak-tracker release. */
  readonly #running = new Map<ChildProcess, Untrack>()
  /** The warm sandboxes, when `warmIdleMs` is set. */
  readonly #warm: WarmPool | undefined
  /** Set during the probe, which always runs cold. */
  #probing = false
  #disposed = false

  constructor(settings: HandleSettings) {
    this.#s = settings
    this.#warm = settings.warmIdleMs > 0 ? new WarmPool(settings.warmIdleMs) : undefined
  }

  async probe(): Promise<void> {
    let result: SandboxRunResult
    this.#probing = true
    try {
      result = await this.run({
        argv: [this.#s.fdCloserShell, '--version'],
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
      if (SkillHostError.isInstance(cause) && cause.code === 'E_SANDBOX_UNAVAILABLE') throw cause
      throw unavailable(
        `the probe failed to start. ${INSTALL_HINT}; user namespaces must be enabled.`,
        cause,
      )
    } finally {
      this.#probing = false
    }
    if (result.exitCode !== 0) {
      const stderr = Buffer.from(result.stderr).toString('utf8').trim()
      throw unavailable(
        `the probe exited ${String(result.exitCode)}. User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, AppArmor's apparmor_restrict_unprivileged_userns, or a container seccomp profile).`,
        undefined,
        stderr,
      )
    }
  }

  async run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    if (this.#disposed) throw unavailable('the handle has been disposed.')
    if (request.signal?.aborted)
      throw new SkillHostError('E_ABORTED', 'The call was aborted before it started.')
    validateRequest(request, this.#s.fdCloserShell)
    const timeoutMs = Math.max(1, Math.floor(request.timeoutMs))
    const limits = resolveLimits(request.limits, this.#s.limits, timeoutMs)
    const facts = await inspectPolicyPaths(request.policy)
    const hostUser = this.#hostUser(request)
    if (hostUser !== undefined && request.scratch !== undefined) {
      // The call's own host-made scratch, and nothing else: a deployer's or
      // user's writable folder keeps its owner (the call runs as its owner instead).
      try {
        await chown(request.scratch, hostUser.uid, hostUser.gid)
      } catch (cause) {
        throw unavailable('the scratch folder could not be handed to the sandbox user.', cause)
      }
    }
    const byPath = request.policy.filesystem.allowRead.filter((p) => !request.grantedFds?.has(p))
    const unreachable = await unreachableReads(byPath, facts, hostUser)
    const argvInput = {
      request,
      limits,
      fdCloserShell: this.#s.fdCloserShell,
      sandboxUid: this.#s.sandboxUid,
      sandboxGid: this.#s.sandboxGid,
      disableUserns: this.#s.disableUserns,
      facts,
    }
    const warm = await this.#runWarm(argvInput, unreachable, hostUser, timeoutMs)
    if (warm !== undefined) return warm
    const staged = await stageUnreachableReads(unreachable, request.scratch)
    const { args, dataFiles, fdBinds } = buildBwrapCommand({
      ...argvInput,
      ...{ statusFd: 3, firstDataFd: FIRST_DATA_FD },
      stagedReads: new Map(staged.map((s) => [s.host, s.stage])),
    })
    const command = launchCommand(this.#s.bwrapPath, args, staged, hostUser)
    return this.#spawn(command, dataFiles, fdBinds, request, timeoutMs)
  }

  /** The call run in a warm sandbox, when it can be; undefined: run it cold. */
  async #runWarm(
    input: Omit<BwrapArgsInput, 'statusFd'>,
    unreachable: readonly string[],
    hostUser: HostIdentity | undefined,
    timeoutMs: number,
  ): Promise<SandboxRunResult | undefined> {
    if (this.#warm === undefined || this.#probing) return undefined
    const plan = warmPlan(input, { bwrapPath: this.#s.bwrapPath, hostUser, unreachable })
    if (plan === undefined) return undefined
    const { request } = input
    const options = {
      timeoutMs,
      maxOutputBytes: request.maxOutputBytes,
      graceMs: this.#s.graceMs,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    }
    // Counted as a cold run is: one sandboxed process started per call, failed when it never set up.
    const metrics = activeMetrics()
    try {
      const result = await this.#warm.run(plan, options, request.owner)
      if (result !== undefined) metrics?.sandboxStart(true)
      return result
    } catch (cause) {
      metrics?.sandboxStart(false)
      throw cause
    }
  }

  async release(owner: object): Promise<void> {
    await this.#warm?.release(owner)
  }

  /** The call's host identity: its `runAs` when this handle runs as a distinct user, never root. */
  #hostUser(request: SandboxRunRequest): { uid: number; gid: number } | undefined {
    const own = this.#s.hostUser
    if (own === undefined || request.runAs === undefined) return own
    const { uid, gid } = request.runAs
    if (!Number.isSafeInteger(uid) || !Number.isSafeInteger(gid) || uid <= 0 || gid < 0) {
      throw unavailable('a script call never runs as root on the host.')
    }
    return { uid, gid }
  }

  /** One bwrap run: start it, watch its deadline and abort, settle its result. */
  #spawn(
    command: { program: string; args: string[]; hostUser: HostIdentity | undefined },
    dataFiles: readonly BwrapDataFile[],
    fdBinds: readonly BwrapFdBind[],
    request: SandboxRunRequest,
    timeoutMs: number,
  ): Promise<SandboxRunResult> {
    // Captured now: the close handler below may run outside the call's context.
    const metrics = activeMetrics()
    const child = startBwrap(command, dataFiles, fdBinds)
    this.#running.set(
      child,
      trackResource('process', `bwrap: ${request.argv.join(' ').slice(0, 120)}`),
    )
    const capture = new OutputCapture(request.maxOutputBytes)
    if (child.stdout) capture.attach('stdout', child.stdout)
    if (child.stderr) capture.attach('stderr', child.stderr)
    const status: BwrapStatus = readBwrapStatus(child.stdio[3])
    let started = false
    child.stdio[STARTED_FD]?.once('data', () => {
      started = true
    })
    const ending = watchEnding(child, status, this.#s.graceMs, timeoutMs, request.signal)
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
        ending.stop()
        if (closeGuard) clearTimeout(closeGuard)
        this.#running.get(child)?.()
        this.#running.delete(child)
        const leakedProcesses = await emptyNamespace(status, ending.sent)
        const output = capture.result()
        const { timedOut, aborted, sent } = ending
        metrics?.sandboxStart(spawnError === undefined && (started || timedOut || aborted))
        if (spawnError !== undefined) return reject(notStarted(spawnError))
        // bwrap's words name host paths: they go to the person's voice only.
        if (!started && !timedOut && !aborted) return reject(notSetUp(exitCode, output.stderr))
        const killed = timedOut || aborted
        resolve({
          exitCode: killed ? null : (status.exitCode ?? exitCode),
          signal: killed ? sent : null,
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
    await this.#warm?.dispose()
    for (const [child, untrack] of this.#running) {
      killGroup(child)
      untrack(new Promise((closed) => child.once('close', closed)))
    }
  }
}
