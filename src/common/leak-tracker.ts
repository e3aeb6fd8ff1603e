/**
 * Resource tracking for the test suite's leak check (after vscode's
 * `setDisposableTracker`): every place that makes something which must be
 * released (a manager, a guest worker, a sandbox process, a folder watch, a
 * workspace or skill copy on disk, a spool directory, an MCP session) calls
 * `trackResource`, and calls the returned `Untrack` when it releases it.
 * With no tracker installed (always, outside tests) `trackResource` returns
 * one shared no-op and records nothing, not even a stack.
 *
 * Every resource has an owner, as vscode's tracker has `setParent`: the
 * object in whose name it was made (`withResourceOwner`: the manager during
 * a load, the skill's record during one of its tool calls), so a leak report
 * names who made it and forgot it, and whether that owner itself was
 * released. Owners are described once (`describeResourceOwner`) and may have
 * owners in turn (a skill's record → its manager → the MCP session that
 * disposes it).
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
  /** In whose name it was made (`withResourceOwner`), if anyone's. */
  readonly owner?: object
  /** The object this resource is, when it can own others in turn (a manager, an MCP session). */
  readonly self?: object
}

/**
 * How a tracker knows the owner in force across awaits (the test suite's
 * is an `AsyncLocalStorage`; the library itself imports no async hooks).
 */
export interface OwnerScope {
  run<T>(owner: object, fn: () => T): T
  current(): object | undefined
}

/** An owner as a leak report names it. */
interface OwnerEntry {
  readonly name: string
  owner: object | undefined
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
  readonly #owners = new WeakMap<object, OwnerEntry>()
  /** Tracked resources by the object they are, to say whether an owner was released. */
  readonly #selves = new WeakMap<object, TrackedResource>()
  /** The owner in force; without a scope, resources have only the owners given to them. */
  readonly scope: OwnerScope | undefined

  constructor(scope?: OwnerScope) {
    this.scope = scope
  }

  /** Names `owner` in leak reports, owned in turn by `by` (none: a root, like a test). */
  describeOwner(owner: object, name: string, by: object | undefined): void {
    this.#owners.set(owner, { name, owner: by === owner ? undefined : by })
  }

  /** Changes who owns `owner` (an MCP session takes over the manager it disposes). */
  setOwner(owner: object, by: object): void {
    const entry = this.#owners.get(owner)
    if (entry !== undefined && by !== owner) entry.owner = by
  }

  /**
   * Who owns `resource`, nearest first: each owner's name, and `released`
   * when it is a tracked resource that was released (it forgot this one).
   */
  ownersOf(resource: TrackedResource): string[] {
    const chain: string[] = []
    const seen = new Set<object>()
    // A resource that is an owner itself may have been taken over since (`setOwner`).
    const first =
      resource.self === undefined ? resource.owner : this.#owners.get(resource.self)?.owner
    for (let at = first; at !== undefined && !seen.has(at); ) {
      seen.add(at)
      const entry = this.#owners.get(at)
      const tracked = this.#selves.get(at)
      const state =
        tracked === undefined ? '' : this.#live.has(tracked) ? ' (leaked too)' : ' (released)'
      chain.push(`${entry?.name ?? 'an undescribed owner'}${state}`)
      at = entry?.owner
    }
    return chain
  }

  /** Records `resource`; returns how to release it. */
  add(resource: TrackedResource): Untrack {
    this.#live.add(resource)
    if (resource.self !== undefined) {
      this.#selves.set(resource.self, resource)
      if (!this.#owners.has(resource.self))
        this.describeOwner(resource.self, `${resource.kind} '${resource.label}'`, resource.owner)
    }
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
export function trackResource(
  kind: ResourceKind,
  label: string,
  exists?: () => boolean,
  self?: object,
): Untrack {
  const tracker = (globalThis as TrackerSlot)[SLOT]
  if (tracker === undefined) return NO_OP
  const stack = new Error().stack?.split('\n').slice(2).join('\n') ?? ''
  const owner = tracker.scope?.current()
  return tracker.add({
    kind,
    label,
    stack,
    exists: exists ?? ALWAYS,
    releasing: undefined,
    ...(owner === undefined ? {} : { owner }),
    ...(self === undefined ? {} : { self }),
  })
}

/**
 * Runs `fn(a, b)` in `owner`'s name: what it tracks, now or after an await,
 * is owned by `owner` (the innermost owner wins). Outside tests, or with no
 * owner, it only calls `fn(a, b)`.
 */
export function withResourceOwner<T, A = undefined, B = undefined>(
  owner: object | undefined,
  fn: (a: A, b: B) => T,
  a?: A,
  b?: B,
): T {
  const scope = (globalThis as TrackerSlot)[SLOT]?.scope
  // `a` and `b` are handed on so a hot caller need not make a closure per call.
  if (scope === undefined || owner === undefined) return fn(a as A, b as B)
  return scope.run(owner, () => fn(a as A, b as B))
}

/**
 * Names `owner` in leak reports (`skill 'pdf' 1.0`), owned in turn by the
 * owner in force now (`withResourceOwner`), if any. A no-op outside tests.
 */
export function describeResourceOwner(owner: object, name: string): void {
  const tracker = (globalThis as TrackerSlot)[SLOT]
  tracker?.describeOwner(owner, name, tracker.scope?.current())
}

/**
 * Makes `by` the owner of `owner` (as vscode's `setParent`): `by` has taken
 * on releasing it, so a leak of it or of what it made names `by` too.
 */
export function setResourceOwner(owner: object, by: object): void {
  ;(globalThis as TrackerSlot)[SLOT]?.setOwner(owner, by)
}

/**
 * A leak report: one paragraph per resource with its kind, label, owners
 * (nearest first, from `tracker`) and creation stack.
 */
export function describeLeaks(
  leaks: readonly TrackedResource[],
  tracker: ResourceTracker | undefined = currentResourceTracker(),
): string {
  const lines = leaks.map((r) => {
    // The runner's own frames say nothing about who made it.
    const frames = r.stack
      .split('\n')
      .filter((f) => !/node_modules|node:internal|<anonymous>/.test(f))
    const owners = tracker?.ownersOf(r) ?? []
    const owned = owners.length === 0 ? 'no owner' : `owned by ${owners.join(' › ')}`
    return `- ${r.kind} '${r.label}', ${owned}, made\n${frames.slice(0, 12).join('\n')}`
  })
  return `${leaks.length} resource(s) outlived the test file:\n${lines.join('\n')}`
}
