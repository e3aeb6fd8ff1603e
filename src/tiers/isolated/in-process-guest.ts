import { evaluateInQuickJs } from './evaluate-in-quickjs.js'
import { encodeHostResult, unwrapOutcome } from './evaluation.js'
import { resolveIsolationLimits } from './limits.js'
import { compileQuickJsWasm, QuickJsInstanceReserve } from './quickjs-module.js'
import type {
  GuestResolver,
  GuestRunRequest,
  GuestRunResult,
  IsolatedGuest,
  IsolationLimits,
} from './types.js'

let warned = false

/**
 * **Unsafe opt-in** (`unsafe.isolatedToolsInProcess`): the same QuickJS
 * evaluation as the worker pool — fresh instance, capped WebAssembly memory,
 * no ambient capabilities — but on the calling thread. Its `kill()` is only
 * best-effort: it stops the guest at the next interrupt check or await, so a
 * single long builtin (a catastrophic regex, a huge sort) blocks the host's
 * event loop until it returns. Emits a process warning once.
 */
export function createInProcessGuest(
  options: { limits?: Partial<IsolationLimits> } = {},
): GuestResolver {
  if (!warned) {
    warned = true
    process.emitWarning(
      'skillhost: isolated tools run in-process; kill() cannot interrupt a long builtin. Use createQuickJsGuest() for a real kill.',
      { code: 'SKILLHOST_ISOLATED_IN_PROCESS' },
    )
  }
  const ceiling = resolveIsolationLimits(options.limits)
  let reserve: QuickJsInstanceReserve | undefined
  return async ({ limits, globals, modules }) => {
    reserve ??= new QuickJsInstanceReserve(await compileQuickJsWasm())
    return new InProcessGuest(reserve, resolveIsolationLimits(limits, ceiling), globals, modules)
  }
}

class InProcessGuest implements IsolatedGuest {
  readonly #stop = new AbortController()
  #used = false

  constructor(
    readonly reserve: QuickJsInstanceReserve,
    readonly limits: IsolationLimits,
    readonly globals: readonly string[],
    readonly modules: Readonly<Record<string, string>>,
  ) {}

  async run(request: GuestRunRequest): Promise<GuestRunResult> {
    if (this.#used) throw new Error('A guest runs exactly one evaluation.')
    this.#used = true
    const signal = this.#stop.signal
    const outcome = await evaluateInQuickJs({
      instances: this.reserve,
      source: request.source,
      argsJson: JSON.stringify(request.args ?? {}),
      timeoutMs: request.timeoutMs,
      globals: this.globals,
      modules: this.modules,
      limits: this.limits,
      stop: signal,
      callGlobal: async (name, argsJson) => {
        const args = argsJson === undefined ? undefined : JSON.parse(argsJson)
        return encodeHostResult(name, await request.callGlobal(name, args, signal))
      },
    })
    // The next call's instance, runtime and context are prepared off its critical path.
    setImmediate(() => void this.reserve.refill(this.limits.memoryBytes))
    return unwrapOutcome(outcome)
  }

  /** Best-effort: effective at the next interrupt check or await, not inside a builtin. */
  kill(): void {
    this.#stop.abort()
  }
}
