import { type QuickJSContext, type QuickJSHandle, Scope } from 'quickjs-emscripten-core'
import type { EvaluationFailureCode, EvaluationOutcome, EvaluationRequest } from './evaluation.js'
import { capMessage } from './evaluation.js'
import { ConsoleCapture, readBoundedString } from './guest-console.js'
import { installGlobals } from './guest-globals.js'
import type { GuestPrelude } from './guest-prelude.js'
import type { FreshQuickJs } from './quickjs-module.js'
import { wasmApi } from './wasm-api.js'

// After the deadline, describing the error that ended the run may still run
// guest code (a getter on `message`); it gets this much more time, no more.
const DESCRIBE_GRACE_MS = 50

type Failure = Extract<EvaluationOutcome, { ok: false }>

/**
 * Evaluates one tool source in a fresh QuickJS runtime and context, in a
 * fresh instance inside a fresh, capped WebAssembly memory, and reports how
 * it ended as plain data. It never throws: every failure, including traps
 * inside the WebAssembly engine, maps to a failure code. The instance is
 * dropped afterwards, never reused; still, every handle the evaluation makes
 * belongs to a quickjs-emscripten `Scope` and is freed however it ends.
 */
export async function evaluateInQuickJs(req: EvaluationRequest): Promise<EvaluationOutcome> {
  const capture = new ConsoleCapture(req.limits.maxConsoleEntries, req.limits.maxConsoleBytes)
  const fail = (code: EvaluationFailureCode, message: string): Failure => ({
    ok: false,
    code,
    message: capMessage(message),
    console: capture.entries,
    consoleTruncated: capture.truncated,
  })
  if (req.stop?.aborted) return fail('E_ABORTED', 'The evaluation was stopped before it started.')
  let fresh: FreshQuickJs
  try {
    fresh = await req.instances.take(req.limits.memoryBytes)
  } catch {
    return fail('E_SKILL_ISOLATED_GUEST_FAILED', 'The QuickJS guest could not be created.')
  }
  const run = new Evaluation(req, fresh, capture, fail)
  try {
    return await run.drive()
  } catch (err) {
    return run.classifyHostException(err)
  } finally {
    run.finish()
  }
}

class Evaluation {
  // Owns every handle the evaluation creates that lives past one step: the
  // tool function, its arguments, its promise, what the guest threw or
  // returned, and each host call's promise (even one the host never
  // answers). `finish` frees them all, on every path out of `drive`.
  readonly #scope = new Scope()
  readonly #own = this.#scope.manage
  #deadline: number
  #interrupted = false
  #stopped = false
  #finished = false
  #fatal: unknown
  #wake: () => void = () => {}
  readonly #ctx: QuickJSContext
  readonly #prelude: GuestPrelude
  readonly #onStop = () => {
    this.#stopped = true
    this.#wake()
  }

  constructor(
    readonly req: EvaluationRequest,
    readonly fresh: FreshQuickJs,
    readonly capture: ConsoleCapture,
    readonly fail: (code: EvaluationFailureCode, message: string) => Failure,
  ) {
    this.#deadline = Date.now() + req.timeoutMs
    this.#ctx = fresh.context
    this.#prelude = fresh.prelude
    req.stop?.addEventListener('abort', this.#onStop, { once: true })
  }

  finish(): void {
    this.#finished = true
    this.req.stop?.removeEventListener('abort', this.#onStop)
    try {
      this.#scope.dispose()
    } catch {
      // Only after the engine itself trapped (out of memory, V8 stack): the
      // instance is then unusable and is dropped whole, handles and all.
    }
  }

  async drive(): Promise<EvaluationOutcome> {
    const { req } = this
    const rt = this.fresh.runtime
    const ctx = this.#ctx
    this.fresh.console.capture = this.capture
    rt.setMaxStackSize(req.limits.stackBytes)
    // Counted in operations, not time: a single long builtin can overrun
    // this, which is why a worker guest also has a hard kill.
    rt.setInterruptHandler(() => {
      if (this.#stopped || Date.now() > this.#deadline) this.#interrupted = true
      return this.#interrupted
    })
    const modules: Record<string, string> = Object.assign(Object.create(null), req.modules)
    rt.setModuleLoader(
      (name, ctx) =>
        Object.hasOwn(modules, name)
          ? (modules[name] as string)
          : { error: ctx.newError(`Module '${name}' is not declared.`) },
      (_base, requested) => requested,
    )
    installGlobals(ctx, this.#prelude, {
      names: req.globals,
      limits: req.limits,
      call: req.callGlobal,
      own: this.#own,
      isFinished: () => this.#finished,
      onSettled: () => this.#wake(),
      onFatal: (err) => {
        this.#fatal ??= err
        this.#wake()
      },
    })

    // Formatters write a lone arrow as `;async (args) => {…};`; the source is
    // wrapped in parentheses, so statement semicolons at either end are trimmed.
    const expression = req.source
      .trim()
      .replace(/^;+\s*/, '')
      .replace(/\s*;+$/, '')
    const own = this.#own
    const fn = own(ctx.evalCode(`(${expression}\n)`, 'tool.js'))
    if (fn.error) return this.#guestFailure(fn.error, 'E_SKILL_ISOLATED_THREW')
    if (ctx.typeof(fn.value) !== 'function') {
      return this.fail(
        'E_SKILL_ISOLATED_THREW',
        'The tool source must be one `async (args) => { ... }` expression.',
      )
    }
    const args = own(this.#parseJson(req.argsJson))
    if (args.error) return this.#guestFailure(args.error, 'E_SKILL_ISOLATED_THREW')
    const call = own(ctx.callFunction(fn.value, ctx.undefined, args.value))
    if (call.error) return this.#guestFailure(call.error, 'E_SKILL_ISOLATED_THREW')

    for (;;) {
      const jobs = rt.executePendingJobs()
      const jobError = jobs.error && own(jobs.error)
      if (this.#fatal !== undefined) throw this.#fatal
      if (jobError) return this.#guestFailure(jobError, 'E_SKILL_ISOLATED_THREW')
      if (this.#stopped) return this.fail('E_ABORTED', 'The evaluation was stopped.')
      const state = ctx.getPromiseState(call.value)
      // A settled state is a new handle (a non-promise result is `call` itself).
      if (state.type === 'fulfilled') return this.#serialize(own(state.value))
      if (state.type === 'rejected')
        return this.#guestFailure(own(state.error), 'E_SKILL_ISOLATED_THREW')
      if (Date.now() > this.#deadline) return this.#timeout()
      // With no host call outstanding the promise can never settle, but the
      // call still ran until its deadline: that is a timeout, not a bad result.
      // The wait ends early only on a stop or a fatal host error.
      await this.#waitForWake(this.#deadline - Date.now())
    }
  }

  #waitForWake(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms) + 1)
      const self = this
      function done() {
        clearTimeout(timer)
        self.#wake = () => {}
        resolve()
      }
      this.#wake = done
    })
  }

  // The (possibly large) text is freed as soon as it is parsed.
  #parseJson(text: string) {
    const ctx = this.#ctx
    return Scope.withScope((scope) =>
      ctx.callFunction(this.#prelude.parse, ctx.undefined, scope.manage(ctx.newString(text))),
    )
  }

  #serialize(value: QuickJSHandle): EvaluationOutcome {
    const ctx = this.#ctx
    const max = this.req.limits.maxResultBytes
    const text = this.#own(ctx.callFunction(this.#prelude.serialize, ctx.undefined, value))
    if (text.error) return this.#guestFailure(text.error, 'E_SKILL_ISOLATED_BAD_RESULT')
    let json = 'null'
    if (ctx.typeof(text.value) === 'string') {
      // Every UTF-16 unit is at least one UTF-8 byte: too many units means
      // too many bytes, and the string is never copied out.
      const units = ctx.getLength(text.value) ?? 0
      if (units > max) return this.#tooLarge()
      json = ctx.getString(text.value)
      if (Buffer.byteLength(json) > max) return this.#tooLarge()
    }
    return {
      ok: true,
      json,
      console: this.capture.entries,
      consoleTruncated: this.capture.truncated,
    }
  }

  #tooLarge(): Failure {
    const max = this.req.limits.maxResultBytes
    return this.fail(
      'E_SKILL_ISOLATED_BAD_RESULT',
      `The tool's result is larger than ${max} bytes of JSON; return less, or a summary.`,
    )
  }

  #timeout(): Failure {
    if (this.#stopped) return this.fail('E_ABORTED', 'The evaluation was stopped.')
    return this.fail(
      'E_SKILL_ISOLATED_TIMEOUT',
      `The tool ran past its ${this.req.timeoutMs} ms deadline and was stopped.`,
    )
  }

  #memoryFull(): boolean {
    return this.fresh.instance.capReached()
  }

  #exhausted(what: 'memory' | 'stack' | 'string'): Failure {
    const { memoryBytes, stackBytes } = this.req.limits
    const message = {
      memory: `The tool ran out of memory (cap ${memoryBytes} bytes).`,
      stack: `The tool overflowed its stack (cap ${stackBytes} bytes); recurse less deeply.`,
      string: 'The tool built a string longer than the interpreter allows.',
    }[what]
    return this.fail('E_SKILL_ISOLATED_RESOURCE_EXHAUSTED', message)
  }

  /** Classifies a value the guest threw; the evaluation's scope frees it. */
  #guestFailure(error: QuickJSHandle, code: EvaluationFailureCode): Failure {
    if (this.#interrupted) return this.#timeout()
    const ctx = this.#ctx
    this.#deadline = Math.max(this.#deadline, Date.now() + DESCRIBE_GRACE_MS)
    const described = this.#own(ctx.callFunction(this.#prelude.describe, ctx.undefined, error))
    if (described.error) {
      if (this.#interrupted) return this.#timeout()
      if (this.#memoryFull()) return this.#exhausted('memory')
      return this.fail(code, 'The tool threw a value that cannot be described.')
    }
    const text = readBoundedString(ctx, this.#prelude, described.value, 2_000)
    // `<name length>:<name><message>`: guest strings cannot carry a NUL
    // separator out, because strings are copied as C strings.
    const colon = text.indexOf(':')
    const nameLength = Number(text.slice(0, colon))
    const name = text.slice(colon + 1, colon + 1 + nameLength)
    const message = text.slice(colon + 1 + nameLength)
    if (name === 'InternalError' || name === '') {
      // QuickJS throws `null` when even the out-of-memory error cannot be allocated.
      if (message === 'out of memory' || this.#memoryFull()) return this.#exhausted('memory')
      if (message === 'stack overflow') return this.#exhausted('stack')
      if (message === 'string too long') return this.#exhausted('string')
    }
    const prefix = code === 'E_SKILL_ISOLATED_BAD_RESULT' ? 'The result is not JSON: ' : ''
    return this.fail(code, prefix + (name ? `${name}: ${message}` : message))
  }

  /**
   * Maps an exception thrown by the engine itself (not by guest code):
   * V8's own stack running out inside deep WebAssembly recursion, an
   * emscripten abort when the allocator gives up, or a trap.
   */
  classifyHostException(err: unknown): Failure {
    if (this.#stopped) return this.fail('E_ABORTED', 'The evaluation was stopped.')
    if (err instanceof RangeError && /call stack/i.test(err.message))
      return this.#exhausted('stack')
    if (err instanceof wasmApi.RuntimeError || /OOM|out of memory/i.test(String(err))) {
      if (/OOM|out of memory/i.test(String(err)) || this.#memoryFull())
        return this.#exhausted('memory')
    }
    if (this.#interrupted) return this.#timeout()
    return this.fail('E_SKILL_ISOLATED_GUEST_FAILED', 'The QuickJS guest failed unexpectedly.')
  }
}
