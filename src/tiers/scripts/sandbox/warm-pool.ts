import type { SandboxRunResult } from './types.js'
import { sweepWarmLeftovers } from './warm-leftovers.js'
import type { WarmPlan } from './warm-plan.js'
import { type WarmCallOptions, WarmSandbox } from './warm-sandbox.js'

/** Most warm sandboxes one handle keeps at once; calls past it run cold. */
export const WARM_SANDBOX_LIMIT = 4

/** An idle warm sandbox: whether its supervisor said `R` again, and its idle timer. */
interface Idle {
  readonly sandbox: WarmSandbox
  readonly ready: Promise<boolean>
  readonly timer: NodeJS.Timeout
}

/**
 * The warm sandboxes of one handle, by owner and key (`WarmPlan.key`): a
 * call takes an idle one of its owner and key or starts one, and gives it
 * back when it is still alive; one idle past `idleMs` is ended, `release`
 * ends an owner's, and `dispose` ends them all. At the limit, the idle one
 * unused longest makes room; a running one is never shared or taken.
 */
export class WarmPool {
  readonly #idleMs: number
  /** Idle sandboxes by owner and key, each list oldest first; the map's order is least recently given first. */
  readonly #idle = new Map<string, Idle[]>()
  /** Every live sandbox and the owner it belongs to. */
  readonly #all = new Map<WarmSandbox, object | undefined>()
  readonly #ownerIds = new WeakMap<object, number>()
  #nextOwner = 1
  #disposed = false
  #swept: Promise<void> | undefined

  constructor(idleMs: number) {
    this.#idleMs = idleMs
  }

  /**
   * Runs the call warm; undefined when it could not (the limit is reached
   * with nothing idle, or a sandbox did not start), and the caller runs it
   * cold. A call that fails in a warm sandbox discards that sandbox.
   */
  async run(
    plan: WarmPlan,
    options: WarmCallOptions,
    owner?: object,
  ): Promise<SandboxRunResult | undefined> {
    const key = `${this.#ownerId(owner)}:${plan.key}`
    let sandbox = await this.#take(key)
    if (sandbox === undefined) {
      if (this.#disposed) return undefined
      if (this.#all.size >= WARM_SANDBOX_LIMIT && !(await this.#evictOldest())) return undefined
      // Once per pool, before its first sandbox: the folders of hosts that died without removing theirs.
      this.#swept ??= sweepWarmLeftovers().then(
        () => undefined,
        () => undefined,
      )
      await this.#swept
      sandbox = await WarmSandbox.start(plan.start)
      if (sandbox === undefined) return undefined
      this.#all.set(sandbox, owner)
      if (this.#disposed) {
        await this.#drop(sandbox)
        return undefined
      }
    }
    sandbox.hold(true)
    try {
      const result = await sandbox.run(plan.call, options)
      this.#give(key, sandbox)
      return result
    } catch (cause) {
      await this.#drop(sandbox)
      throw cause
    }
  }

  /** A number per owner (0: none), so two owners' keys never meet; the owner itself is not kept alive. */
  #ownerId(owner: object | undefined): number {
    if (owner === undefined) return 0
    let id = this.#ownerIds.get(owner)
    if (id === undefined) {
      id = this.#nextOwner++
      this.#ownerIds.set(owner, id)
    }
    return id
  }

  async #take(key: string): Promise<WarmSandbox | undefined> {
    const list = this.#idle.get(key)
    for (let idle = list?.pop(); idle !== undefined; idle = list?.pop()) {
      clearTimeout(idle.timer)
      // Held before waiting for its `R`: an idle sandbox holds nothing, and a
      // host with nothing else on its event loop would exit mid-wait.
      idle.sandbox.hold(true)
      if (await idle.ready) return idle.sandbox
      await this.#drop(idle.sandbox)
    }
    if (list?.length === 0 && this.#idle.get(key) === list) this.#idle.delete(key)
    return undefined
  }

  /** Ends the idle sandbox given back longest ago; false when none is idle. */
  async #evictOldest(): Promise<boolean> {
    for (const [key, list] of this.#idle) {
      const idle = list.shift()
      if (list.length === 0) this.#idle.delete(key)
      if (idle === undefined) continue
      clearTimeout(idle.timer)
      await this.#drop(idle.sandbox)
      return true
    }
    return false
  }

  #give(key: string, sandbox: WarmSandbox): void {
    if (this.#disposed || !sandbox.alive) {
      void this.#drop(sandbox)
      return
    }
    // Idle, it keeps no process alive; its supervisor ends when this one's pipes close.
    sandbox.hold(false)
    const list = this.#idle.get(key) ?? []
    // Moved to the map's end: the most recently given key.
    this.#idle.delete(key)
    this.#idle.set(key, list)
    const idle: Idle = {
      sandbox,
      ready: sandbox.ready(),
      timer: setTimeout(() => {
        const at = list.indexOf(idle)
        if (at >= 0) list.splice(at, 1)
        if (list.length === 0 && this.#idle.get(key) === list) this.#idle.delete(key)
        void this.#drop(sandbox)
      }, this.#idleMs),
    }
    idle.timer.unref()
    list.push(idle)
  }

  #drop(sandbox: WarmSandbox): Promise<void> {
    this.#all.delete(sandbox)
    return sandbox.dispose()
  }

  /** Ends every warm sandbox of `owner`, idle or running; its next call starts a fresh one. */
  async release(owner: object): Promise<void> {
    const prefix = `${this.#ownerIds.get(owner) ?? -1}:`
    for (const [key, list] of this.#idle) {
      if (!key.startsWith(prefix)) continue
      for (const idle of list) clearTimeout(idle.timer)
      this.#idle.delete(key)
    }
    const mine = [...this.#all].filter(([, o]) => o === owner).map(([s]) => s)
    await Promise.all(mine.map((s) => this.#drop(s)))
  }

  /** Ends every warm sandbox, idle or running; later calls run cold. */
  async dispose(): Promise<void> {
    this.#disposed = true
    for (const list of this.#idle.values()) for (const idle of list) clearTimeout(idle.timer)
    this.#idle.clear()
    await Promise.all([...this.#all.keys()].map((s) => this.#drop(s)))
  }
}
