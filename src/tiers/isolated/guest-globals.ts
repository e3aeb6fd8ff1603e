import {
  createDisposableArray,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  Scope,
} from 'quickjs-emscripten-core'
import type { GuestPrelude } from './guest-prelude.js'
import type { IsolationLimits } from './types.js'

/** Host calls one evaluation may have pending at once. */
export const MAX_CALLS_IN_FLIGHT = 32

/** What `installGlobals` needs from the evaluation that owns the context. */
export interface GlobalsWiring {
  names: readonly string[]
  limits: IsolationLimits
  /** Sends JSON text to the host global; resolves with JSON text or `undefined`. */
  call(name: string, argsJson: string | undefined): Promise<string | undefined>
  /** The evaluation's `Scope.manage`: what outlives one step is freed when the evaluation ends. */
  own: Scope['manage']
  /** True once the evaluation ended: late replies are dropped, never touch the guest. */
  isFinished(): boolean
  /** A host call settled inside the guest: the evaluation should run its jobs. */
  onSettled(): void
  /** Settling threw inside the engine (e.g. out of memory): the evaluation must end. */
  onFatal(err: unknown): void
}

/**
 * Defines each declared host global as an async guest function taking one
 * JSON argument. Arguments leave the guest as JSON text (capped at
 * `maxArgsBytes`); results enter it through the genuine `JSON.parse` (capped
 * at `maxResultBytes`). At most `MAX_CALLS_IN_FLIGHT` calls are pending at once.
 * Handles made for one step (a guest call, a host reply) live in that step's
 * `Scope`, freed however the step ends, a guest exception or an engine trap.
 */
export function installGlobals(
  ctx: QuickJSContext,
  prelude: GuestPrelude,
  wiring: GlobalsWiring,
): void {
  const calls = new HostCalls(ctx, prelude, wiring)
  Scope.withScope((scope) => {
    for (const name of wiring.names) {
      const fn = scope.manage(
        ctx.newFunction(name, (arg?: QuickJSHandle) =>
          Scope.withScope((step) => calls.start(step, name, arg)),
        ),
      )
      ctx.defineProp(ctx.global, name, { value: fn, configurable: true, enumerable: false })
    }
  })
}

/** One evaluation's host calls: started by the guest, settled inside it when the host answers. */
class HostCalls {
  readonly #ctx: QuickJSContext
  readonly #prelude: GuestPrelude
  readonly #wiring: GlobalsWiring
  // Calls waiting on the host. Their promises outlive the guest function
  // that made them, so the evaluation's scope owns this list and frees what
  // is left in it (a call the host never answered) when the evaluation ends.
  readonly #pending: QuickJSDeferredPromise[]
  #calls = 0

  constructor(ctx: QuickJSContext, prelude: GuestPrelude, wiring: GlobalsWiring) {
    this.#ctx = ctx
    this.#prelude = prelude
    this.#wiring = wiring
    this.#pending = wiring.own(createDisposableArray<QuickJSDeferredPromise>())
  }

  /** A guest's call of host global `name`: the promise the guest gets (already rejected past a cap). */
  start(step: Scope, name: string, arg: QuickJSHandle | undefined): QuickJSHandle {
    const ctx = this.#ctx
    const limits = this.#wiring.limits
    // Without these caps a guest could fire thousands of host calls
    // without awaiting any, each a real side effect in the host.
    if (this.#pending.length >= MAX_CALLS_IN_FLIGHT) {
      return this.#rejectWith(
        step,
        `More than ${MAX_CALLS_IN_FLIGHT} host calls are in flight; await some first.`,
      )
    }
    if (++this.#calls > limits.maxHostCalls) {
      return this.#rejectWith(step, `This call may make at most ${limits.maxHostCalls} host calls.`)
    }
    const text = step.manage(
      ctx.callFunction(this.#prelude.serialize, ctx.undefined, arg ?? ctx.undefined),
    )
    if (text.error) return this.#rejected(step, text.error)
    let argsJson: string | undefined
    if (ctx.typeof(text.value) === 'string') {
      const units = ctx.getLength(text.value) ?? 0
      argsJson = units > limits.maxArgsBytes ? undefined : ctx.getString(text.value)
      if (argsJson === undefined || Buffer.byteLength(argsJson) > limits.maxArgsBytes) {
        return this.#rejectWith(
          step,
          `Arguments to '${name}' exceed ${limits.maxArgsBytes} bytes of JSON.`,
        )
      }
    }
    const deferred = ctx.newPromise()
    this.#pending.push(deferred)
    this.#wiring.call(name, argsJson).then(
      (resultJson) =>
        this.#settle(deferred, (s) => this.#resolveWith(s, deferred, name, resultJson)),
      (err: unknown) =>
        this.#settle(deferred, (s) => {
          const message = err instanceof Error ? err.message : `Host function '${name}' failed.`
          deferred.reject(s.manage(ctx.newError(message)))
        }),
    )
    // The same reference: quickjs-emscripten frees it once the guest holds its own.
    return deferred.handle
  }

  // A promise that is already rejected. Its step owns it; the guest gets a
  // new reference, which quickjs-emscripten frees once the guest holds it.
  #rejected(step: Scope, error: QuickJSHandle): QuickJSHandle {
    const deferred = step.manage(this.#ctx.newPromise())
    deferred.reject(error)
    return deferred.handle.dup()
  }

  #rejectWith(step: Scope, message: string): QuickJSHandle {
    return this.#rejected(step, step.manage(this.#ctx.newError({ name: 'TypeError', message })))
  }

  #settle(deferred: QuickJSDeferredPromise, apply: (step: Scope) => void): void {
    const at = this.#pending.indexOf(deferred)
    if (at >= 0) this.#pending.splice(at, 1)
    if (this.#wiring.isFinished()) return
    try {
      Scope.withScope(apply)
      this.#wiring.onSettled()
    } catch (err) {
      this.#wiring.onFatal(err)
    }
  }

  #resolveWith(
    step: Scope,
    deferred: QuickJSDeferredPromise,
    name: string,
    json: string | undefined,
  ): void {
    const ctx = this.#ctx
    if (json === undefined) {
      deferred.resolve(ctx.undefined)
      return
    }
    if (Buffer.byteLength(json) > this.#wiring.limits.maxResultBytes) {
      const message = `The result of '${name}' exceeds ${this.#wiring.limits.maxResultBytes} bytes of JSON.`
      deferred.reject(step.manage(ctx.newError(message)))
      return
    }
    // The text (up to `maxResultBytes`) is freed before the promise settles.
    const parsed = step.manage(
      Scope.withScope((inner) =>
        ctx.callFunction(this.#prelude.parse, ctx.undefined, inner.manage(ctx.newString(json))),
      ),
    )
    if (parsed.error) deferred.reject(parsed.error)
    else deferred.resolve(parsed.value)
  }
}
