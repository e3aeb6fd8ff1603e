import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core'
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
 */
export function installGlobals(
  ctx: QuickJSContext,
  prelude: GuestPrelude,
  wiring: GlobalsWiring,
): void {
  const pending = new Set<QuickJSDeferredPromise>()
  let calls = 0
  for (const name of wiring.names) {
    const fn = ctx.newFunction(name, (arg?: QuickJSHandle) => {
      const deferred = ctx.newPromise()
      const rejectWith = (message: string) => {
        const error = ctx.newError({ name: 'TypeError', message })
        deferred.reject(error)
        error.dispose()
        return deferred.handle
      }
      // Without these caps a guest could fire thousands of host calls
      // without awaiting any, each a real side effect in the host.
      if (pending.size >= MAX_CALLS_IN_FLIGHT) {
        return rejectWith(
          `More than ${MAX_CALLS_IN_FLIGHT} host calls are in flight; await some first.`,
        )
      }
      if (++calls > wiring.limits.maxHostCalls) {
        return rejectWith(`This call may make at most ${wiring.limits.maxHostCalls} host calls.`)
      }
      const text = ctx.callFunction(prelude.serialize, ctx.undefined, arg ?? ctx.undefined)
      if (text.error) {
        deferred.reject(text.error)
        text.error.dispose()
        return deferred.handle
      }
      let argsJson: string | undefined
      if (ctx.typeof(text.value) === 'string') {
        const units = ctx.getLength(text.value) ?? 0
        argsJson = units > wiring.limits.maxArgsBytes ? undefined : ctx.getString(text.value)
        if (argsJson === undefined || Buffer.byteLength(argsJson) > wiring.limits.maxArgsBytes) {
          text.value.dispose()
          return rejectWith(
            `Arguments to '${name}' exceed ${wiring.limits.maxArgsBytes} bytes of JSON.`,
          )
        }
      }
      text.value.dispose()
      pending.add(deferred)
      wiring.call(name, argsJson).then(
        (resultJson) => settle(deferred, () => resolveWith(deferred, name, resultJson)),
        (err: unknown) =>
          settle(deferred, () => {
            const message = err instanceof Error ? err.message : `Host function '${name}' failed.`
            const error = ctx.newError(message)
            deferred.reject(error)
            error.dispose()
          }),
      )
      return deferred.handle
    })
    ctx.defineProp(ctx.global, name, { value: fn, configurable: true, enumerable: false })
    fn.dispose()
  }

  function settle(deferred: QuickJSDeferredPromise, apply: () => void): void {
    pending.delete(deferred)
    if (wiring.isFinished()) return
    try {
      apply()
      wiring.onSettled()
    } catch (err) {
      wiring.onFatal(err)
    }
  }

  function resolveWith(
    deferred: QuickJSDeferredPromise,
    name: string,
    json: string | undefined,
  ): void {
    if (json === undefined) {
      deferred.resolve(ctx.undefined)
      return
    }
    if (Buffer.byteLength(json) > wiring.limits.maxResultBytes) {
      const error = ctx.newError(
        `The result of '${name}' exceeds ${wiring.limits.maxResultBytes} bytes of JSON.`,
      )
      deferred.reject(error)
      error.dispose()
      return
    }
    const text = ctx.newString(json)
    const parsed = ctx.callFunction(prelude.parse, ctx.undefined, text)
    text.dispose()
    if (parsed.error) {
      deferred.reject(parsed.error)
      parsed.error.dispose()
    } else {
      deferred.resolve(parsed.value)
      parsed.value.dispose()
    }
  }
}
