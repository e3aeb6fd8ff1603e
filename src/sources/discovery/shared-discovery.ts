import type { DiscoveredSkill, DiscoverOptions, DiscoveryProgress, SkillProblem } from '../types.js'
import { throwIfAborted } from './visit-folder.js'

/** One discovery, in the order the walk produced it: skills and the problems reported among them. */
export type DiscoveryEvent =
  | { readonly skill: DiscoveredSkill; readonly problem?: undefined }
  | { readonly skill?: undefined; readonly problem: SkillProblem }

/** A complete discovery, kept so later callers can replay it. */
export interface Discovery {
  readonly events: readonly DiscoveryEvent[]
}

/** Options for `SharedDiscovery`. */
export interface SharedDiscoveryOptions {
  /** Runs one walk, telling `onProgress` its running totals as it goes. */
  readonly walk: (onProgress: (progress: DiscoveryProgress) => void) => Promise<Discovery>
  /**
   * Whether a walk now would change nothing (a watched cache that is clean),
   * so the last discovery may be replayed without one.
   */
  readonly current: () => boolean
}

/** `promise`, or `E_ABORTED` as soon as `signal` aborts (the work itself goes on for other callers). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      try {
        throwIfAborted(signal)
      } catch (err) {
        reject(err)
      }
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * One walk at a time, shared by every caller. A caller arriving while a walk
 * runs waits for the next one, which starts only after it (so it sees
 * changes made before the call) and serves everyone who arrived meanwhile.
 * While `current()` holds, the last discovery is replayed without a walk.
 * Each caller's abort signal ends only its own wait, never the walk.
 */
export class SharedDiscovery {
  readonly #walkOnce: SharedDiscoveryOptions['walk']
  readonly #current: () => boolean
  /** The progress listeners of the callers waiting on the walk. */
  readonly #progress = new Set<(progress: DiscoveryProgress) => void>()
  /** Each discovery's skills as one array, shared by `discoverBatch` callers. */
  readonly #batches = new WeakMap<Discovery, readonly DiscoveredSkill[]>()
  #last: Discovery | undefined
  #walking: Promise<Discovery> | undefined
  #queued: Promise<Discovery> | undefined

  constructor(options: SharedDiscoveryOptions) {
    this.#walkOnce = options.walk
    this.#current = options.current
  }

  /** The current discovery's skills, its problems reported in walk order (see `SkillSource.discover`). */
  async *discover(options: DiscoverOptions = {}): AsyncGenerator<DiscoveredSkill> {
    const report = options.report ?? (() => undefined)
    const { events } = await this.#wait(options)
    for (const event of events) {
      // Nothing is yielded or reported after an abort.
      throwIfAborted(options.signal)
      if (event.skill) yield event.skill
      else report(event.problem)
    }
  }

  /**
   * `discover` at once: the same skills, and the same problems reported in
   * order, with no promise per skill. The array is shared by every caller of
   * one discovery: do not mutate it.
   */
  async discoverBatch(options: DiscoverOptions = {}): Promise<readonly DiscoveredSkill[]> {
    const discovery = await this.#wait(options)
    let skills = this.#batches.get(discovery)
    if (skills === undefined) {
      skills = discovery.events.flatMap((e) => (e.skill ? [e.skill] : []))
      this.#batches.set(discovery, skills)
    }
    if (options.report) for (const e of discovery.events) if (!e.skill) options.report(e.problem)
    throwIfAborted(options.signal)
    return skills
  }

  /** The current discovery for one caller: its abort signal honoured, its progress told. */
  async #wait(options: DiscoverOptions): Promise<Discovery> {
    throwIfAborted(options.signal)
    // Every caller waiting on a walk hears its progress; a replay has none to tell.
    const onProgress = options.onProgress
    if (onProgress) this.#progress.add(onProgress)
    try {
      return await abortable(this.#discovery(), options.signal)
    } finally {
      if (onProgress) this.#progress.delete(onProgress)
    }
  }

  /** The current discovery: the last one when it is known current, else the next walk. */
  #discovery(): Promise<Discovery> {
    if (this.#last && this.#current() && !this.#walking) return Promise.resolve(this.#last)
    if (!this.#walking) return this.#startWalk()
    this.#queued ??= this.#walking
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined
        return this.#last && this.#current() ? this.#last : this.#startWalk()
      })
    return this.#queued
  }

  #startWalk(): Promise<Discovery> {
    const walking = this.#walk().finally(() => {
      if (this.#walking === walking) this.#walking = undefined
    })
    this.#walking = walking
    return walking
  }

  async #walk(): Promise<Discovery> {
    const discovery = await this.#walkOnce((progress) => {
      for (const listener of this.#progress) listener(progress)
    })
    this.#last = discovery
    return discovery
  }
}
