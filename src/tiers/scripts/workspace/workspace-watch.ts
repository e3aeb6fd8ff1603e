import { SessionWorkspace } from './session-workspace.js'

/** How often a running call's workspace is measured against its cap, at least. */
const WATCH_INTERVAL_MS = 250

/**
 * Measures the workspace while a call runs and aborts the call once it has
 * grown past the cap (a workspace already over it may still shrink). The
 * interval stretches with the walk's own cost, so a large workspace is not
 * walked continuously.
 */
export class WorkspaceWatch {
  readonly #controller = new AbortController()
  readonly #detach: () => void
  #timer: NodeJS.Timeout | undefined
  #stopped = false
  overCap: number | undefined

  constructor(
    readonly workspace: SessionWorkspace,
    readonly startBytes: number,
    outer: AbortSignal | undefined,
  ) {
    const forward = () => this.#controller.abort()
    outer?.addEventListener('abort', forward, { once: true })
    this.#detach = () => outer?.removeEventListener('abort', forward)
    this.#schedule(WATCH_INTERVAL_MS)
  }

  #schedule(ms: number): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => void this.#tick(), ms)
    this.#timer.unref()
  }

  async #tick(): Promise<void> {
    const started = performance.now()
    try {
      const { entries, complete } = await this.workspace.snapshot()
      const bytes = complete ? SessionWorkspace.usage(entries) : Number.POSITIVE_INFINITY
      // Past the entry or depth limit the tree is unmeasured: counted as over the cap.
      if (bytes > this.workspace.maxBytes && bytes > this.startBytes) {
        this.overCap = bytes
        this.#controller.abort()
        return
      }
    } catch {
      // A walk racing the script's own deletes: measure again next tick.
    }
    this.#schedule(Math.max(WATCH_INTERVAL_MS, 10 * (performance.now() - started)))
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#detach()
  }
}
