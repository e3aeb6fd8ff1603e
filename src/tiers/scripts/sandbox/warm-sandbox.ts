import { type ChildProcess, execFile } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { chmod, chown, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { trackResource } from '../../../common/leak-tracker.js'
import type { BwrapDataFile } from './bwrap-args.js'
import { killGroup, notSetUp, startBwrap } from './bwrap-process.js'
import { pidsInNamespace, reapNamespace } from './namespace-reaper.js'
import { OutputCapture } from './output-capture.js'
import { type BwrapStatus, readBwrapStatus } from './read-bwrap-status.js'
import { unavailable } from './run-request.js'
import type { HostIdentity } from './sandbox-host-user.js'
import type { SandboxRunResult } from './types.js'
import { launchCommand } from './unreachable-reads.js'
import { warmFolderPrefix } from './warm-leftovers.js'
import {
  encodeWarmRequest,
  MAX_REPORT_LINE,
  parseSupervisorReport,
  type SupervisorReport,
  type WarmCallRequest,
} from './warm-supervisor.js'

/** Stands for the control folder's host path in a warm sandbox's argv until it is made. */
export const CONTROL_HOST_PLACEHOLDER = '\u0000skillhost-warm-control'

/** Stands for the host path of stage folder `i` (`WarmStart.staged[i]` is bound there) until it is made. */
export function stagePlaceholder(i: number): string {
  return `\u0000skillhost-warm-stage-${i}`
}

/** What starting one warm sandbox takes: its bwrap argv (with the placeholder) and /etc files. */
export interface WarmStart {
  readonly bwrapPath: string
  readonly args: readonly string[]
  readonly dataFiles: readonly BwrapDataFile[]
  readonly hostUser: HostIdentity | undefined
  /** Read folders the host user cannot reach, each bound (as root, in bwrap's own mount namespace) onto stage folder `i`. */
  readonly staged: readonly string[]
  /** The bash copied, exec-only, as the supervisor (non-dumpable: no ptrace, no /proc/1/mem). */
  readonly shell: string
  readonly mkfifo: string
}

/** How one warm call is bounded, as a cold one is. */
export interface WarmCallOptions {
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  readonly graceMs: number
  readonly signal?: AbortSignal
}

/** A FIFO read end, with a write end of ours held until the supervisor's own is open. */
interface FifoReader {
  readonly socket: Socket
  release(): void
}

function openFifo(path: string): FifoReader {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  let keeper: number | undefined = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK)
  const socket = new Socket({ fd, readable: true, writable: false })
  return {
    socket,
    release() {
      if (keeper !== undefined) closeSync(keeper)
      keeper = undefined
    },
  }
}

/**
 * One warm sandbox (docs/security.md, "Warm sandbox"): a bwrap whose pid 1 is
 * the supervisor, talked to over its stdin and stdout only, one call at a
 * time. Anything unexpected kills it; the pool then starts another.
 */
export class WarmSandbox {
  readonly #child: ChildProcess
  readonly #control: string
  readonly #status: BwrapStatus
  readonly #closed: Promise<void>
  readonly #reports: SupervisorReport[] = []
  #waiter: ((report: SupervisorReport | undefined) => void) | undefined
  #buffer = ''
  #dead = false

  private constructor(child: ChildProcess, control: string, folder: string) {
    this.#child = child
    this.#control = control
    this.#status = readBwrapStatus(child.stdio[3])
    child.stderr?.resume()
    child.stdin?.on('error', () => undefined)
    child.stdout?.setEncoding('latin1')
    child.stdout?.on('data', (chunk: string) => this.#take(chunk))
    const untrack = trackResource('process', 'warm bwrap sandbox')
    this.#closed = new Promise((resolve) => {
      child.once('error', () => undefined)
      child.once('close', () => {
        this.#end()
        // bwrap's mount namespace (the stages' binds) ended with it: the stages are empty folders again.
        void rm(folder, { recursive: true, force: true }).then(() => resolve())
      })
    })
    untrack(this.#closed)
  }

  /**
   * Starts one; undefined when it could not be set up (the caller runs
   * cold). Its host folder holds `c` (the control folder, bound read-only
   * at `WARM_CONTROL_MOUNT`: the FIFOs and the supervisor's bash) and `s/N`,
   * the stage folders, outside what the sandbox sees.
   */
  static async start(s: WarmStart): Promise<WarmSandbox | undefined> {
    // Named after this process, so a later start can tell a leftover of a dead host (`sweepWarmLeftovers`).
    const folder = await mkdtemp(join(tmpdir(), warmFolderPrefix()))
    const control = join(folder, 'c')
    const stages = s.staged.map((_, i) => join(folder, 's', String(i)))
    try {
      await mkdir(control, { mode: 0o700 })
      for (const stage of stages) await mkdir(stage, { recursive: true, mode: 0o755 })
      const fifos = ['o', 'e'].map((n) => join(control, n))
      await promisify(execFile)(s.mkfifo, ['-m', '0600', '--', ...fifos], { env: {} })
      await copyFile(s.shell, join(control, 'sh'))
      await chmod(join(control, 'sh'), 0o111)
      if (s.hostUser !== undefined) {
        // The folder stays this process's own (the sweep removes only its uid's): the host user only traverses it.
        await chmod(folder, 0o711)
        for (const p of [control, ...fifos]) await chown(p, s.hostUser.uid, s.hostUser.gid)
      }
    } catch {
      await rm(folder, { recursive: true, force: true })
      return undefined
    }
    const real = new Map<string, string>([
      [CONTROL_HOST_PLACEHOLDER, control],
      ...stages.map((stage, i): [string, string] => [stagePlaceholder(i), stage]),
    ])
    const args = s.args.map((a) => real.get(a) ?? a)
    const staged = s.staged.map((host, i) => ({ host, stage: stages[i] as string }))
    const command = launchCommand(s.bwrapPath, args, staged, s.hostUser)
    const child = startBwrap(command, s.dataFiles, [], 'pipe')
    const sandbox = new WarmSandbox(child, control, folder)
    if ((await sandbox.#next())?.kind === 'ready') return sandbox
    await sandbox.dispose()
    return undefined
  }

  /** False once it ended or misbehaved. */
  get alive(): boolean {
    return !this.#dead
  }

  #take(chunk: string): void {
    this.#buffer += chunk
    let newline = this.#buffer.indexOf('\n')
    while (newline >= 0) {
      const report = parseSupervisorReport(this.#buffer.slice(0, newline))
      this.#buffer = this.#buffer.slice(newline + 1)
      if (report === undefined) {
        this.kill()
        return
      }
      this.#reports.push(report)
      newline = this.#buffer.indexOf('\n')
    }
    if (this.#buffer.length > MAX_REPORT_LINE) {
      this.kill()
      return
    }
    this.#deliver()
  }

  #deliver(): void {
    const waiter = this.#waiter
    if (waiter === undefined) return
    const report = this.#reports.shift()
    if (report === undefined && !this.#dead) return
    this.#waiter = undefined
    waiter(report)
  }

  #end(): void {
    this.#dead = true
    this.#reports.length = 0
    this.#deliver()
  }

  /** The next report; undefined once the sandbox ended. */
  #next(): Promise<SupervisorReport | undefined> {
    return new Promise((resolve) => {
      this.#waiter = resolve
      this.#deliver()
    })
  }

  /** Waits for the supervisor's `R` after a call: true when it may take the next one. */
  async ready(): Promise<boolean> {
    if (this.#dead) return false
    const report = await this.#next()
    if (report?.kind === 'ready') return true
    this.kill()
    return false
  }

  /**
   * Whether this sandbox keeps the host process alive: yes during a call,
   * no while idle (its supervisor exits when this process's pipes to it
   * close, which ends the sandbox, so an idle one never outlives its host).
   */
  hold(on: boolean): void {
    if (on) this.#child.ref()
    else this.#child.unref()
    for (const stream of this.#child.stdio) {
      // A closed pipe has no handle left to hold (and `ref` would wait for a `connect`).
      if (stream == null || stream.destroyed) continue
      const pipe = stream as typeof stream & { ref?(): void; unref?(): void }
      if (on) pipe.ref?.()
      else pipe.unref?.()
    }
  }

  /** Kills the whole sandbox (bwrap's group: the supervisor and every call process). */
  kill(): void {
    this.#dead = true
    killGroup(this.#child)
  }

  /** Kills it and waits until it is gone, holding the host process alive until then. */
  async dispose(): Promise<void> {
    this.hold(true)
    this.kill()
    await this.#closed
  }

  /**
   * Runs one call and settles it as the cold path does. Throws
   * `E_SANDBOX_UNAVAILABLE` when the call's limits or cwd could not be set
   * (no `B` before the exit) or the supervisor ended mid-call; after a
   * timeout or abort the sandbox is killed, never reused.
   */
  async run(call: WarmCallRequest, o: WarmCallOptions): Promise<SandboxRunResult> {
    const out = openFifo(join(this.#control, 'o'))
    const err = openFifo(join(this.#control, 'e'))
    const capture = new OutputCapture(o.maxOutputBytes)
    capture.attach('stdout', out.socket)
    capture.attach('stderr', err.socket)
    const drained = Promise.all([out.socket, err.socket].map(ended))
    const ending = this.#watch(o)
    this.#child.stdin?.write(encodeWarmRequest(call))
    let report = await this.#next()
    const began = report?.kind === 'began'
    out.release()
    err.release()
    if (began) report = await this.#next()
    await drained
    ending.stop()
    const killed = ending.timedOut || ending.aborted
    if (killed) await this.dispose()
    const leakedProcesses = killed ? await this.#reap() : 0
    const output = capture.result()
    if (!killed && (report?.kind !== 'exited' || !began)) {
      this.kill()
      if (report?.kind === 'exited') throw notSetUp(report.status, output.stderr)
      throw unavailable('the warm sandbox ended during the call.')
    }
    return {
      exitCode: killed || report?.kind !== 'exited' ? null : report.status,
      signal: killed ? ending.sent : null,
      timedOut: ending.timedOut,
      aborted: ending.aborted,
      ...output,
      leakedProcesses,
    }
  }

  async #reap(): Promise<number> {
    const inode = this.#status.pidNamespace
    return inode === undefined ? 0 : reapNamespace(inode)
  }

  /**
   * The call's deadline and abort: SIGTERM to the call's processes (all of
   * the namespace but the supervisor), then after the grace the whole
   * sandbox is killed; at once when nothing is left to warn.
   */
  #watch(o: WarmCallOptions): WarmEnding {
    let grace: NodeJS.Timeout | undefined
    const ending: WarmEnding = {
      timedOut: false,
      aborted: false,
      sent: null,
      stop: () => {
        clearTimeout(timer)
        if (grace) clearTimeout(grace)
        o.signal?.removeEventListener('abort', onAbort)
      },
    }
    const terminate = () => {
      if (ending.sent !== null) return
      const inode = this.#status.pidNamespace
      const init = this.#status.childPid
      const pids = inode === undefined ? [] : pidsInNamespace(inode).filter((p) => p !== init)
      if (pids.length === 0 || o.graceMs === 0) {
        ending.sent = 'SIGKILL'
        return this.kill()
      }
      ending.sent = 'SIGTERM'
      for (const pid of pids) signalQuietly(pid, 'SIGTERM')
      grace = setTimeout(() => {
        ending.sent = 'SIGKILL'
        this.kill()
      }, o.graceMs)
    }
    const timer = setTimeout(() => {
      ending.timedOut = true
      terminate()
    }, o.timeoutMs)
    const onAbort = () => {
      ending.aborted = true
      terminate()
    }
    o.signal?.addEventListener('abort', onAbort, { once: true })
    return ending
  }
}

interface WarmEnding {
  timedOut: boolean
  aborted: boolean
  sent: NodeJS.Signals | null
  stop(): void
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** Resolves when the stream has ended or been destroyed. */
function ended(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('close', () => resolve())
    socket.once('error', () => resolve())
  })
}
