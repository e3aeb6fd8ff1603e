import { availableParallelism } from 'node:os'
import { activeMetrics } from '../../common/active-metrics.js'
import { SkillHostError } from '../../common/errors.js'
import { describeResourceOwner, withResourceOwner } from '../../common/leak-tracker.js'
import { FairQueue, type GuestPoolFairShare, resolveFairShare } from './fair-queue.js'
import { resolveIsolationLimits } from './limits.js'
import { busyError, disposedError, waitAbortedError } from './pool-errors.js'
import { type PoolWorker, startPoolWorker, workerLostError } from './pool-worker.js'
import { compileQuickJsWasm, type QuickJsBinary } from './quickjs-module.js'
import { type GuestLease, type LeasePort, QuickJsPoolGuest } from './quickjs-pool-guest.js'
import type { GuestResolveOptions, IsolatedGuest, IsolationLimits } from './types.js'
import type { WorkerBoot } from './worker-protocol.js'

/** Options for `createQuickJsGuest`. */
export interface QuickJsGuestPoolOptions {
  /** Workers kept at most (default: the machine's available parallelism). */
  poolSize?: number
  /** Ceilings for every guest of this pool; a configuration can only lower them. */
  limits?: Partial<IsolationLimits>
  /**
   * How workers are shared between owners (`GuestResolveOptions.owner`, one
   * per session): queue bounds and a cap on the workers one owner holds.
   */
  fairShare?: Partial<GuestPoolFairShare>
}

/** Counters that let a host (or a test) see that no worker leaks. */
export interface QuickJsGuestPoolStats {
  poolSize: number
  /** Workers started and not yet exited (starting, idle or busy). */
  alive: number
  busy: number
  idle: number
  /** `resolveGuest` calls waiting for a free worker. */
  waiting: number
  /** Owners with a call running or waiting. */
  owners: number
  /** Calls refused with `E_SKILL_ISOLATED_BUSY` because a queue bound was reached. */
  refused: number
  /** Workers ever started. */
  spawned: number
  /** Workers started to replace one that was killed or crashed. */
  respawns: number
  /** Workers terminated by `kill()` on a running guest. */
  kills: number
}

interface Waiter {
  lease: GuestLease
  resolve(guest: IsolatedGuest): void
  reject(err: unknown): void
  signal: AbortSignal
  onAbort(): void
}

/**
 * A pool of `worker_threads`, each evaluating one guest at a time in a fresh
 * QuickJS instance with a capped WebAssembly memory. `kill()` on a running
 * guest terminates its worker (the only way to stop a long builtin) and a
 * replacement is started; nothing else in the pool is affected.
 *
 * The pool is shared by sessions, so waiting calls are not served first come
 * first served: each owner (`GuestResolveOptions.owner`) has its own queue,
 * a free worker goes to the owner served least recently, one owner holds at
 * most `maxActivePerOwner` workers, and a call that would overfill the whole
 * queue or its owner's share fails at once with `E_SKILL_ISOLATED_BUSY`.
 */
export class QuickJsGuestPool implements AsyncDisposable {
  readonly poolSize: number
  readonly limits: Readonly<IsolationLimits>
  readonly fairShare: Readonly<GuestPoolFairShare>
  readonly #workers = new Set<PoolWorker>()
  readonly #waiters: FairQueue<Waiter>
  /** The owner of each lease still holding a worker, released exactly once. */
  readonly #leaseOwners = new Map<QuickJsPoolGuest, unknown>()
  #disposed = false
  #refused = 0
  #spawned = 0
  #respawns = 0
  #kills = 0
  #binary: QuickJsBinary | undefined

  constructor(options: QuickJsGuestPoolOptions = {}) {
    const size = options.poolSize ?? availableParallelism()
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new SkillHostError('E_INVALID_SKILLS_CONFIG', 'poolSize must be a positive integer.')
    }
    this.poolSize = size
    this.limits = Object.freeze(resolveIsolationLimits(options.limits))
    this.fairShare = Object.freeze(resolveFairShare(size, options.fairShare))
    this.#waiters = new FairQueue(this.fairShare)
    // The pool owns its workers, whichever call made it spawn one (leak reports).
    describeResourceOwner(this, `QuickJS guest pool (${size} workers)`)
  }

  /**
   * A `GuestResolver`: leases a worker for one evaluation, waiting for one to
   * free up if all are busy (in turn with the other owners). Rejects with
   * `E_ABORTED` if `signal` aborts first, and with `E_SKILL_ISOLATED_BUSY`
   * at once when the call would overfill the queue.
   */
  readonly resolveGuest = async (options: GuestResolveOptions): Promise<IsolatedGuest> => {
    const limits = resolveIsolationLimits(options.limits, this.limits)
    await this.#loadWasm()
    if (this.#disposed) throw disposedError()
    if (options.signal.aborted) throw waitAbortedError()
    const metrics = activeMetrics()
    const queued = performance.now()
    return new Promise((resolve, reject) => {
      const owner = options.owner
      const waiter: Waiter = {
        lease: { limits, globals: options.globals, modules: options.modules },
        resolve: (guest) => {
          metrics?.isolatedQueueWait((performance.now() - queued) / 1000)
          resolve(guest)
        },
        reject,
        signal: options.signal,
        onAbort: () => {
          this.#waiters.remove(owner, waiter)
          reject(waitAbortedError())
        },
      }
      options.signal.addEventListener('abort', waiter.onAbort, { once: true })
      this.#waiters.push(owner, waiter)
      this.#dispatch()
      // Asked after dispatching: a call a free worker took never counts.
      const overflow = this.#waiters.overflow(owner)
      if (overflow && this.#waiters.remove(owner, waiter)) {
        options.signal.removeEventListener('abort', waiter.onAbort)
        this.#refused++
        reject(busyError(overflow))
      }
    })
  }

  /** Starts every worker now and waits until they are ready; calls are then warm. */
  async warm(): Promise<void> {
    await this.#loadWasm()
    while (!this.#disposed && this.#workers.size < this.poolSize) this.#spawn(false)
    await Promise.all([...this.#workers].map((w) => w.settled))
  }

  /** A snapshot of the pool's counters. */
  stats(): QuickJsGuestPoolStats {
    const workers = [...this.#workers]
    return {
      poolSize: this.poolSize,
      alive: workers.length,
      busy: workers.filter((w) => w.lease).length,
      idle: workers.filter((w) => w.ready && !w.lease).length,
      waiting: this.#waiters.size,
      owners: this.#waiters.owners,
      refused: this.#refused,
      spawned: this.#spawned,
      respawns: this.#respawns,
      kills: this.#kills,
    }
  }

  /** Terminates every worker and fails waiting and running calls. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    for (const waiter of this.#waiters.drain()) {
      waiter.signal.removeEventListener('abort', waiter.onAbort)
      waiter.reject(disposedError())
    }
    const workers = [...this.#workers]
    for (const w of workers) w.lease?.workerLost(disposedError())
    await Promise.all(workers.map((w) => this.#terminate(w)))
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose()
  }

  // What a lease may do to its worker; guests get this, not the pool.
  #portFor(w: PoolWorker): LeasePort {
    return {
      post: (message) => {
        if (!w.dead) w.worker.postMessage(message)
      },
      release: (guest) => {
        if (w.lease !== guest) return
        w.lease = undefined
        this.#endLease(guest)
        if (!w.dead) w.worker.unref()
        this.#dispatch()
      },
      kill: () => {
        if (w.dead) return
        this.#kills++
        void this.#terminate(w)
      },
    }
  }

  /** A lease stopped holding its worker: its owner may take another. Idempotent. */
  #endLease(lease: QuickJsPoolGuest): void {
    if (!this.#leaseOwners.has(lease)) return
    const owner = this.#leaseOwners.get(lease)
    this.#leaseOwners.delete(lease)
    this.#waiters.done(owner)
  }

  #dispatch(): void {
    while (this.#waiters.size > 0 && !this.#disposed) {
      const w = [...this.#workers].find((candidate) => candidate.ready && !candidate.lease)
      if (!w) break
      const next = this.#waiters.take()
      if (!next) break
      const waiter = next.item
      waiter.signal.removeEventListener('abort', waiter.onAbort)
      const lease = new QuickJsPoolGuest(this.#portFor(w), waiter.lease)
      w.lease = lease
      this.#leaseOwners.set(lease, next.owner)
      w.worker.ref()
      waiter.resolve(lease)
    }
    // Waiters held back by their owner's cap need no new worker.
    const starting = [...this.#workers].filter((w) => !w.ready).length
    let needed = this.#waiters.runnable() - starting
    while (needed-- > 0 && this.#workers.size < this.poolSize && !this.#disposed) this.#spawn(false)
  }

  async #loadWasm(): Promise<void> {
    try {
      this.#binary ??= await compileQuickJsWasm()
    } catch (cause) {
      throw new SkillHostError(
        'E_SKILL_ISOLATED_GUEST_FAILED',
        'The QuickJS binary could not be loaded.',
        {
          cause,
        },
      )
    }
  }

  #spawn(replacement: boolean): void {
    const boot: WorkerBoot = {
      binary: this.#binary as QuickJsBinary,
      memoryBytes: this.limits.memoryBytes,
    }
    const w = withResourceOwner(this, () =>
      startPoolWorker(boot, {
        ready: () => this.#dispatch(),
        lost: (lost, err) => this.#lost(lost, err),
      }),
    )
    this.#workers.add(w)
    this.#spawned++
    if (replacement) this.#respawns++
  }

  /** A worker exited or crashed: fail its guest, forget it, replace it if needed. */
  #lost(w: PoolWorker, err: Error | undefined): void {
    const wasDead = w.dead
    w.dead = true
    this.#workers.delete(w)
    const lease = w.lease
    w.lease = undefined
    if (lease) this.#endLease(lease)
    lease?.workerLost(workerLostError(err))
    if (wasDead || this.#disposed) return
    if (w.ready) {
      this.#replace()
      return
    }
    // Died while booting: respawning would only loop. Fail those waiting;
    // a later call tries again.
    for (const waiter of this.#waiters.drain()) {
      waiter.signal.removeEventListener('abort', waiter.onAbort)
      waiter.reject(
        new SkillHostError('E_SKILL_ISOLATED_GUEST_FAILED', 'The guest worker failed to start.', {
          cause: err,
        }),
      )
    }
  }

  #replace(): void {
    if (this.#workers.size < this.poolSize) this.#spawn(true)
    this.#dispatch()
  }

  #terminate(w: PoolWorker): Promise<void> {
    const wasDead = w.dead
    w.dead = true
    this.#workers.delete(w)
    if (w.lease) this.#endLease(w.lease)
    const done = w.worker.terminate().then(
      () => {},
      () => {},
    )
    w.untrack(done)
    if (!wasDead && !this.#disposed) this.#replace()
    return done
  }
}

/**
 * Creates a pool of QuickJS worker guests. Pass `pool.resolveGuest` as
 * `SkillIsolationConfig.resolveGuest`, and dispose the pool (or `await using`
 * it) when the host shuts down; idle workers never keep the process alive.
 */
export function createQuickJsGuest(options?: QuickJsGuestPoolOptions): QuickJsGuestPool {
  return new QuickJsGuestPool(options)
}
