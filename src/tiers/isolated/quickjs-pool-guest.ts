import { SkillHostError } from '../../common/errors.js'
import { encodeHostResult, hostFailureMessage, unwrapOutcome } from './evaluation.js'
import type {
  GuestResolveOptions,
  GuestRunRequest,
  GuestRunResult,
  IsolatedGuest,
  IsolationLimits,
} from './types.js'
import type { FromWorker, ToWorker } from './worker-protocol.js'

let nextRunId = 0

/** What a lease may do to the worker it holds; given by the pool. */
export interface LeasePort {
  post(message: ToWorker): void
  /** The run ended normally: the worker takes the next call. */
  release(guest: QuickJsPoolGuest): void
  /** Terminate the worker now; the pool starts a replacement. */
  kill(): void
}

/** What a lease is for: the resolved limits and the declared capabilities. */
export type GuestLease = Pick<GuestResolveOptions, 'globals' | 'modules'> & {
  limits: IsolationLimits
}

/**
 * A lease on one pool worker for exactly one evaluation. Host-global calls
 * from the worker are answered here with JSON text. `kill()` while running
 * terminates the worker; before or after the run it only returns the lease.
 */
export class QuickJsPoolGuest implements IsolatedGuest {
  readonly #port: LeasePort
  readonly #limits: IsolationLimits
  readonly #globals: string[]
  readonly #modules: Record<string, string>
  readonly #calls = new AbortController()
  #runId = 0
  #state: 'leased' | 'running' | 'ended' = 'leased'
  #request: GuestRunRequest | undefined
  #settle: { resolve(r: GuestRunResult): void; reject(e: unknown): void } | undefined

  constructor(port: LeasePort, options: GuestLease) {
    this.#port = port
    this.#limits = options.limits
    this.#globals = [...options.globals]
    this.#modules = { ...options.modules }
  }

  run(request: GuestRunRequest): Promise<GuestRunResult> {
    if (this.#state !== 'leased') {
      return Promise.reject(
        new SkillHostError('E_SKILL_ISOLATED_GUEST_FAILED', 'A guest runs exactly one evaluation.'),
      )
    }
    this.#state = 'running'
    this.#request = request
    this.#runId = ++nextRunId
    return new Promise<GuestRunResult>((resolve, reject) => {
      this.#settle = { resolve, reject }
      this.#port.post({
        type: 'run',
        runId: this.#runId,
        source: request.source,
        argsJson: JSON.stringify(request.args ?? {}),
        timeoutMs: request.timeoutMs,
        globals: this.#globals,
        modules: this.#modules,
        limits: this.#limits,
      })
    })
  }

  kill(): void {
    if (this.#state === 'ended') return
    const wasRunning = this.#state === 'running'
    this.#end()
    if (wasRunning) {
      this.#port.kill()
      this.#settle?.reject(new SkillHostError('E_ABORTED', 'The guest was killed.'))
    } else this.#port.release(this)
  }

  /** The pool lost the worker (crash, out of memory, disposal): fail the run. */
  workerLost(error: SkillHostError): void {
    if (this.#state === 'ended') return
    this.#end()
    this.#settle?.reject(error)
  }

  /** A message from the leased worker. */
  onMessage(message: FromWorker): void {
    if (this.#state !== 'running' || !('runId' in message) || message.runId !== this.#runId) return
    if (message.type === 'call') {
      void this.#answer(message.callId, message.name, message.argsJson)
      return
    }
    if (message.type !== 'done') return
    const settle = this.#settle
    this.#end()
    this.#port.release(this)
    try {
      settle?.resolve(unwrapOutcome(message.outcome))
    } catch (err) {
      settle?.reject(err)
    }
  }

  async #answer(callId: number, name: string, argsJson: string | undefined): Promise<void> {
    const runId = this.#runId
    const request = this.#request as GuestRunRequest
    try {
      const args = argsJson === undefined ? undefined : JSON.parse(argsJson)
      const result = await request.callGlobal(name, args, this.#calls.signal)
      const json = encodeHostResult(name, result)
      if (this.#state === 'running') {
        this.#port.post({ type: 'reply', runId, callId, ok: true, json })
      }
    } catch (err) {
      if (this.#state !== 'running') return
      const message = hostFailureMessage(name, err)
      this.#port.post({ type: 'reply', runId, callId, ok: false, message })
    }
  }

  #end(): void {
    this.#state = 'ended'
    this.#calls.abort()
  }
}
