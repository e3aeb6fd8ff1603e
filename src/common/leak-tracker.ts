/**
 * Resource tracking for the test suite's leak check (after vscode's
 * `setDisposableTracker`): every place that makes something which must be
 * released (a manager, a guest worker, a sandbox process, a folder watch, a
 * workspace or skill copy on disk, a spool directory, an MCP session) calls
 * `trackResource`, and calls the returned `Untrack` when it releases it.
 * With no tracker installed (always, outside tests) `trackResource` returns
 * one shared no-op and records nothing, not even a stack.
 *
 * Internal: not exported from any entry. The tracker lives on `globalThis`
 * under a registered symbol, so the sources the tests import and the compiled
 * copies some tests load report to the same tracker.
 */

/** What was made; each kind names its releasing call in the leak message. */
export type ResourceKind =
  | 'manager'
  | 'worker'
  | 'process'
  | 'watcher'
  | 'session-workspace'
  | 'skill-copy'
  | 'scratch'
  | 'sandbox-dir'
  | 'spool'
  | 'mcp-session'

/**
 * Marks a tracked resource released. With a promise, the release is under
 * way and ends when it settles (a leak check waits for it); without, it is
 * released now. Calling it again is harmless.
 */
export type Untrack = (until?: PromiseLike<unknown>) => void

/** One live resource as a tracker sees it. */
export interface TrackedResource {
  readonly kind: ResourceKind
  /** Says which one (a folder, a skill id); may hold host paths, so never shown to a model. */
  readonly label: string
  /** The stack of the `trackResource` call. */
  readonly stack: string
  /** False once the resource went away without being released (its folder was removed). */
  readonly exists: () => boolean
  /** Set while a release is under way. */
  releasing: Promise<unknown> | undefined
}

const NO_OP: Untrack = () => undefined
const ALWAYS = (): boolean => true
const SLOT = Symbol.for('skillhost.resourceTracker')

type TrackerSlot = { [SLOT]?: ResourceTracker }

/**
 * Collects live resources. `settle` waits for releases under way and for
 * pending I/O callbacks (an exit or close event already due), never for a
 * wall-clock interval; `leaks` then lists what is still alive.
 */
export class ResourceTracker {
  readonly #live = new Set<TrackedResource>()

  /** Records `resource`; returns how to release it. */
  add(resource: TrackedResource): Untrack {
    this.#live.add(resource)
    return (until) => {
      if (!this.#live.has(resource)) return
      if (until === undefined) {
        this.#live.delete(resource)
        return
      }
      const releasing = Promise.resolve(until).then(
        () => this.#live.delete(resource),
        () => this.#live.delete(resource),
      )
      resource.releasing = releasing
    }
  }

  /** Resources made and neither released nor gone, oldest first. */
  leaks(): TrackedResource[] {
    return [...this.#live].filter((r) => {
      if (r.exists()) return true
      this.#live.delete(r)
      return false
    })
  }

  /**
   * Waits until no release is under way and the I/O callbacks already due
   * have run (a killed process's close, a terminated worker's exit), for at
   * most 100 turns of the event loop, then returns `leaks()`. A release that never settles keeps it waiting; the
   * test runner's hook timeout reports that.
   */
  async settle(): Promise<TrackedResource[]> {
    // Bounded in turns, not time, so a pool that keeps replacing workers cannot spin forever.
    for (let turn = 0; turn < 100; turn++) {
      const pending = [...this.#live].flatMap((r) => (r.releasing ? [r.releasing] : []))
      await Promise.allSettled(pending)
      // One turn of the event loop: callbacks whose I/O has completed run now.
      const before = this.#live.size
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (pending.length === 0 && this.#live.size === before) break
    }
    return this.leaks()
  }

  /** Forgets every resource (after a report, so one leak is not reported twice). */
  clear(): void {
    this.#live.clear()
  }
}

/**
 * Installs `tracker` (or none) for resources made from now on; returns the
 * previous one. Test-only: resources made before stay with their tracker.
 */
export function setResourceTracker(
  tracker: ResourceTracker | undefined,
): ResourceTracker | undefined {
  const slot = globalThis as TrackerSlot
  const previous = slot[SLOT]
  if (tracker === undefined) delete slot[SLOT]
  else slot[SLOT] = tracker
  return previous
}

/** The installed tracker, if any. */
export function currentResourceTracker(): ResourceTracker | undefined {
  return (globalThis as TrackerSlot)[SLOT]
}

/**
 * Records that a resource of `kind` was made, when a tracker is installed.
 * `exists`, when given, lets a check skip a resource that is already gone
 * (a folder removed with its parent by the test). Returns the `Untrack` to
 * call on release; a no-op, with no stack taken, when nothing is tracking.
 */
export function trackResource(kind: ResourceKind, label: string, exists?: () => boolean): Untrack {
  const tracker = (globalThis as TrackerSlot)[SLOT]
  if (tracker === undefined) return NO_OP
  const stack = new Error().stack?.split('\n').slice(2).join('\n') ?? ''
  return tracker.add({ kind, label, stack, exists: exists ?? ALWAYS, releasing: undefined })
}

/** A leak report: one paragraph per resource with its kind, label and creation stack. */
export function describeLeaks(leaks: readonly TrackedResource[]): string {
  const lines = leaks.map((r) => {
    // The runner's own frames say nothing about who made it.
    const frames = r.stack
      .split('\n')
      .filter((f) => !/node_modules|node:internal|<anonymous>/.test(f))
    return `- ${r.kind} '${r.label}', made\n${frames.slice(0, 12).join('\n')}`
  })
  return `${leaks.length} resource(s) outlived the test file:\n${lines.join('\n')}`
}
