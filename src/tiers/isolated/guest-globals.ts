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
  // Calls waiting on the host. Their promises outlive the guest function
  // that made them, so the evaluation's scope owns this list and frees what
  // is left in it (a call the host never answered) when the evaluation ends.
  const pending = wiring.own(createDisposableArray<QuickJSDeferredPromise>())
  let calls = 0
  // A promise that is already rejected. Its step owns it; the guest gets a
  // new reference, which quickjs-emscripten frees once the guest holds it.
  const rejected = (step: Scope, error: QuickJSHandle) => {
    const deferred = step.manage(ctx.newPromise())
    deferred.reject(error)
    return deferred.handle.dup()
  }
  const rejectWith = (step: Scope, message: string) =>
    rejected(step, step.manage(ctx.newError({ name: 'TypeError', message })))

  const start = (step: Scope, name: string, arg: QuickJSHandle | undefined) => {
    // Without these caps a guest could fire thousands of host calls
    // without awaiting any, each a real side effect in the host.
    if (pending.length >= MAX_CALLS_IN_FLIGHT) {
      return rejectWith(
        step,
        `More than ${MAX_CALLS_IN_FLIGHT} host calls are in flight; await some first.`,
      )
    }
    if (++calls > wiring.limits.maxHostCalls) {
      return rejectWith(
        step,
        `This call may make at most ${wiring.limits.maxHostCalls} host calls.`,
      )
    }
    const text = step.manage(
      ctx.callFunction(prelude.serialize, ctx.undefined, arg ?? ctx.undefined),
    )
    if (text.error) return rejected(step, text.error)
    let argsJson: string | undefined
    if (ctx.typeof(text.value) === 'string') {
      const units = ctx.getLength(text.value) ?? 0
      argsJson = units > wiring.limits.maxArgsBytes ? undefined : ctx.getString(text.value)
      if (argsJson === undefined || Buffer.byteLength(argsJson) > wiring.limits.maxArgsBytes) {
        const max = wiring.limits.maxArgsBytes
        return rejectWith(step, `Arguments to '${name}' exceed ${max} bytes of JSON.`)
      }
    }
    const deferred = ctx.newPromise()
    pending.push(deferred)
    wiring.call(name, argsJson).then(
      (resultJson) => settle(deferred, (s) => resolveWith(s, deferred, name, resultJson)),
      (err: unknown) =>
        settle(deferred, (s) => {
          const message = err instanceof Error ? err.message : `Host function '${name}' failed.`
          deferred.reject(s.manage(ctx.newError(message)))
        }),
    )
    // The same reference: quickjs-emscripten frees it once the guest holds its own.
    return deferred.handle
  }

  Scope.withScope((scope) => {
    for (const name of wiring.names) {
      const fn = scope.manage(
        ctx.newFunction(name, (arg?: QuickJSHandle) =>
          Scope.withScope((step) => start(step, name, arg)),
        ),
      )
      ctx.defineProp(ctx.global, name, { value: fn, configurable: true, enumerable: false })
    }
  })

  function settle(deferred: QuickJSDeferredPromise, apply: (step: Scope) => void): void {
    const at = pending.indexOf(deferred)
    if (at >= 0) pending.splice(at, 1)
    if (wiring.isFinished()) return
    try {
      Scope.withScope(apply)
      wiring.onSettled()
    } catch (err) {
      wiring.onFatal(err)
    }
  }

  function resolveWith(
    step: Scope,
    deferred: QuickJSDeferredPromise,
    name: string,
    json: string | undefined,
  ): void {
    if (json === undefined) {
      deferred.resolve(ctx.undefined)
      return
    }
    if (Buffer.byteLength(json) > wiring.limits.maxResultBytes) {
      const message = `The result of '${name}' exceeds ${wiring.limits.maxResultBytes} bytes of JSON.`
      deferred.reject(step.manage(ctx.newError(message)))
      return
    }
    // The text (up to `maxResultBytes`) is freed before the promise settles.
    const parsed = step.manage(
      Scope.withScope((inner) =>
        ctx.callFunction(prelude.parse, ctx.undefined, inner.manage(ctx.newString(json))),
      ),
    )
    if (parsed.error) deferred.reject(parsed.error)
    else deferred.resolve(parsed.value)
  }
}
