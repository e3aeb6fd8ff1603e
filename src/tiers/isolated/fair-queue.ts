import { SkillHostError } from '../../common/errors.js'

/**
 * How a guest pool shares its workers between owners (sessions). Every field
 * is a positive integer; `resolveFairShare` fills the defaults from the size.
 */
export interface GuestPoolFairShare {
  /** Calls waiting for a worker, all owners together (default 32 × poolSize). */
  maxQueued: number
  /**
   * Workers one owner holds at once (default half the pool, rounded up), so
   * one session's long calls always leave workers for the others.
   */
  maxActivePerOwner: number
  /** Calls one owner may have waiting (default a quarter of `maxQueued`, rounded up). */
  maxQueuedPerOwner: number
}

/** Which bound a refused call hit: the whole queue, or its owner's share of it. */
export type QueueOverflow = 'pool' | 'owner'

const FIELDS = ['maxQueued', 'maxActivePerOwner', 'maxQueuedPerOwner'] as const

/** Fills unset fields from defaults sized for `poolSize`; throws `E_INVALID_SKILLS_CONFIG` on nonsense. */
export function resolveFairShare(
  poolSize: number,
  partial: Partial<GuestPoolFairShare> = {},
): GuestPoolFairShare {
  for (const field of FIELDS) {
    const value = partial[field]
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
      throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `${field} must be a positive integer.`)
    }
  }
  const maxQueued = partial.maxQueued ?? 32 * poolSize
  return {
    maxQueued,
    maxActivePerOwner: partial.maxActivePerOwner ?? Math.ceil(poolSize / 2),
    maxQueuedPerOwner: partial.maxQueuedPerOwner ?? Math.ceil(maxQueued / 4),
  }
}

interface OwnerState<T> {
  readonly queue: T[]
  active: number
  /** When this owner last got a worker (0: not since it was last idle). */
  served: number
}

/**
 * The waiting room of a guest pool: one FIFO per owner, and `take()` serves
 * the owner that was served least recently among those under their active
 * cap. A flooding owner therefore gets every other turn at most, and a
 * newcomer is served next. Owners compare by identity (`Map` keys); an owner
 * with nothing active or waiting is forgotten.
 */
export class FairQueue<T> {
  readonly #share: GuestPoolFairShare
  readonly #owners = new Map<unknown, OwnerState<T>>()
  #size = 0
  #clock = 0

  constructor(share: GuestPoolFairShare) {
    this.#share = share
  }

  /** Calls waiting, all owners together. */
  get size(): number {
    return this.#size
  }

  /** Owners with a call running or waiting. */
  get owners(): number {
    return this.#owners.size
  }

  /** Waiting calls that could start now if there were free workers (their owner is under its cap). */
  runnable(): number {
    let n = 0
    for (const state of this.#owners.values()) {
      n += Math.min(state.queue.length, Math.max(0, this.#share.maxActivePerOwner - state.active))
    }
    return n
  }

  /** Queues `item` for `owner`. Check `overflow` once the pool has dispatched. */
  push(owner: unknown, item: T): void {
    let state = this.#owners.get(owner)
    if (!state) {
      state = { queue: [], active: 0, served: 0 }
      this.#owners.set(owner, state)
    }
    state.queue.push(item)
    this.#size++
  }

  /**
   * Which bound the queue exceeds after `owner` queued a call, if any. The
   * pool asks after dispatching, so a call a free worker took at once never
   * counts against the bound.
   */
  overflow(owner: unknown): QueueOverflow | undefined {
    if (this.#size > this.#share.maxQueued) return 'pool'
    const queued = this.#owners.get(owner)?.queue.length ?? 0
    return queued > this.#share.maxQueuedPerOwner ? 'owner' : undefined
  }

  /** Removes a waiting item (aborted, refused); false when it is not waiting. */
  remove(owner: unknown, item: T): boolean {
    const state = this.#owners.get(owner)
    const at = state ? state.queue.indexOf(item) : -1
    if (!state || at < 0) return false
    state.queue.splice(at, 1)
    this.#size--
    this.#forgetIfIdle(owner, state)
    return true
  }

  /**
   * The next item to give a worker, counted as active for its owner until
   * `done(owner)`; undefined when nothing waiting may run now.
   */
  take(): { owner: unknown; item: T } | undefined {
    let best: [unknown, OwnerState<T>] | undefined
    for (const entry of this.#owners) {
      const state = entry[1]
      if (state.queue.length === 0 || state.active >= this.#share.maxActivePerOwner) continue
      if (!best || state.served < best[1].served) best = entry
    }
    if (!best) return undefined
    const [owner, state] = best
    const item = state.queue.shift() as T
    this.#size--
    state.active++
    state.served = ++this.#clock
    return { owner, item }
  }

  /** One of `owner`'s active items ended; its worker is free for the next call. */
  done(owner: unknown): void {
    const state = this.#owners.get(owner)
    if (!state || state.active === 0) return
    state.active--
    this.#forgetIfIdle(owner, state)
  }

  /** Removes and returns every waiting item (disposal, a pool that cannot start). */
  drain(): T[] {
    const out: T[] = []
    for (const [owner, state] of this.#owners) {
      out.push(...state.queue.splice(0))
      this.#forgetIfIdle(owner, state)
    }
    this.#size = 0
    return out
  }

  #forgetIfIdle(owner: unknown, state: OwnerState<T>): void {
    if (state.queue.length === 0 && state.active === 0) this.#owners.delete(owner)
  }
}
