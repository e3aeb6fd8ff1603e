import type { SandboxRunResult } from './types.js'
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
 * The warm sandboxes of one handle, by key (`WarmPlan.key`): a call takes an
 * idle one of its key or starts one, and gives it back when it is still
 * alive; one idle past `idleMs` is ended, and `dispose` ends them all.
 */
export class WarmPool {
  readonly #idleMs: number
  readonly #idle = new Map<string, Idle[]>()
  readonly #all = new Set<WarmSandbox>()
  #disposed = false

  constructor(idleMs: number) {
    this.#idleMs = idleMs
  }

  /**
   * Runs the call warm; undefined when it could not (the limit is reached
   * or a sandbox did not start), and the caller runs it cold. A call that
   * fails in a warm sandbox discards that sandbox.
   */
  async run(plan: WarmPlan, options: WarmCallOptions): Promise<SandboxRunResult | undefined> {
    let sandbox = await this.#take(plan.key)
    if (sandbox === undefined) {
      if (this.#disposed || this.#all.size >= WARM_SANDBOX_LIMIT) return undefined
      const starting = WarmSandbox.start(plan.start)
      sandbox = await starting
      if (sandbox === undefined) return undefined
      this.#all.add(sandbox)
      if (this.#disposed) {
        await this.#drop(sandbox)
        return undefined
      }
    }
    try {
      const result = await sandbox.run(plan.call, options)
      this.#give(plan.key, sandbox)
      return result
    } catch (cause) {
      await this.#drop(sandbox)
      throw cause
    }
  }

  async #take(key: string): Promise<WarmSandbox | undefined> {
    const list = this.#idle.get(key)
    for (let idle = list?.pop(); idle !== undefined; idle = list?.pop()) {
      clearTimeout(idle.timer)
      if (await idle.ready) return idle.sandbox
      await this.#drop(idle.sandbox)
    }
    return undefined
  }

  #give(key: string, sandbox: WarmSandbox): void {
    if (this.#disposed || !sandbox.alive) {
      void this.#drop(sandbox)
      return
    }
    const list = this.#idle.get(key) ?? []
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

  /** Ends every warm sandbox, idle or running; later calls run cold. */
  async dispose(): Promise<void> {
    this.#disposed = true
    for (const list of this.#idle.values()) for (const idle of list) clearTimeout(idle.timer)
    this.#idle.clear()
    await Promise.all([...this.#all].map((s) => this.#drop(s)))
  }
}
