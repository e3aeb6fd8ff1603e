import { SkillHostError } from '../../common/errors.js'
import { type CompiledSchema, compileInputSchema } from '../../common/schema.js'
import { resolveIsolationLimits } from './limits.js'
import type {
  GuestConsoleEntry,
  GuestRunResult,
  IsolatedGuest,
  IsolationLimits,
  SkillIsolatedTool,
  SkillIsolationConfig,
} from './types.js'

/**
 * How long after the soft deadline a guest that has not stopped by itself is
 * killed. The soft deadline (QuickJS's interrupt handler) is counted in
 * operations; a single long builtin only stops on the kill.
 */
export const HARD_KILL_GRACE_MS = 100

/** Options for one call. */
export interface RunIsolatedToolOptions {
  /** The turn's abort signal: aborting kills the guest. */
  signal?: AbortSignal
  /**
   * The model's `timeout_seconds`, clamped to 1..maxTimeoutSeconds. It
   * bounds the whole call, time spent waiting for a guest included.
   */
  timeoutSeconds?: number
  /** The fair-share key passed to the resolver (default `config.owner`). */
  owner?: unknown
}

/** What one isolated call produced. */
export interface IsolatedToolResult {
  /** Valid JSON text of the result, at most `maxResultBytes` UTF-8 bytes. */
  json: string
  console: GuestConsoleEntry[]
  consoleTruncated: boolean
}

const ISOLATED_CODES = new Set([
  'E_SKILL_ISOLATED_TIMEOUT',
  'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  'E_SKILL_ISOLATED_THREW',
  'E_SKILL_ISOLATED_BAD_RESULT',
  'E_SKILL_ISOLATED_GUEST_FAILED',
  'E_SKILL_ISOLATED_BUSY',
])

const schemas = new WeakMap<SkillIsolatedTool, CompiledSchema<unknown>>()

function schemaOf(tool: SkillIsolatedTool): CompiledSchema<unknown> {
  let schema = schemas.get(tool)
  if (!schema) {
    schema = compileInputSchema<unknown>(tool.name, tool.params ?? { type: 'object' })
    schemas.set(tool, schema)
  }
  return schema
}

/** The effective timeout in seconds: the default when unset, else clamped to 1..max. */
export function clampTimeoutSeconds(config: SkillIsolationConfig, requested: unknown): number {
  const max = config.maxTimeoutSeconds
  if (!(Number.isFinite(max) && max >= 1)) {
    throw new SkillHostError('E_INVALID_SKILLS_CONFIG', 'maxTimeoutSeconds must be a number >= 1.')
  }
  if (requested === undefined) return Math.min(Math.max(config.defaultTimeoutSeconds, 1), max)
  if (typeof requested !== 'number' || !Number.isFinite(requested)) {
    throw new SkillHostError(
      'E_TOOL_INVALID_ARGS',
      `timeout_seconds must be a number from 1 to ${max}.`,
    )
  }
  return Math.min(Math.max(requested, 1), max)
}

/**
 * Runs one isolated tool call: validates `args` against `tool.params`,
 * clamps the timeout, obtains a fresh guest (passing the caller's signal),
 * kills it on timeout or abort, and returns the result as capped, valid JSON
 * text. The timeout is one deadline for the whole call: waiting for a guest
 * uses it up, and the guest gets only what is left. Every failure is a
 * `SkillHostError` with a model-safe message: `E_TOOL_INVALID_ARGS`,
 * `E_ABORTED`, or one of the `E_SKILL_ISOLATED_*` codes.
 */
export async function runIsolatedTool(
  config: SkillIsolationConfig,
  tool: SkillIsolatedTool,
  args: unknown,
  options: RunIsolatedToolOptions = {},
): Promise<IsolatedToolResult> {
  const resolveGuest = config.resolveGuest
  if (!resolveGuest) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'Isolated tools need a guest: set resolveGuest (e.g. createQuickJsGuest().resolveGuest).',
    )
  }
  const timeoutSeconds = clampTimeoutSeconds(config, options.timeoutSeconds)
  const limits = resolveIsolationLimits(config.limits)
  const valid = await schemaOf(tool).validate(args)
  const argsBytes = Buffer.byteLength(JSON.stringify(valid ?? null))
  if (argsBytes > limits.maxArgsBytes) {
    throw new SkillHostError(
      'E_TOOL_INVALID_ARGS',
      `Arguments for '${tool.name}' are ${argsBytes} bytes of JSON; the limit is ${limits.maxArgsBytes}.`,
    )
  }
  const signal = options.signal ?? new AbortController().signal
  if (signal.aborted) throw abortedError()
  const globals: HostGlobals = Object.assign(Object.create(null), config.globals)
  const modules = Object.assign(Object.create(null), config.modules) as Record<string, string>

  const budgetMs = Math.round(timeoutSeconds * 1000)
  const started = performance.now()
  const queuedOut = () => queuedTimeoutError(timeoutSeconds, config.maxTimeoutSeconds)
  const owner = Object.hasOwn(options, 'owner') ? options.owner : config.owner
  const guest = await obtainGuest(
    (waitSignal) =>
      resolveGuest({ signal: waitSignal, limits, globals: Object.keys(globals), modules, owner }),
    signal,
    budgetMs,
    queuedOut,
  )
  // What the queue left of the budget is all the guest gets.
  const timeoutMs = Math.round(budgetMs - (performance.now() - started))
  if (timeoutMs < 1) {
    guest.kill()
    throw queuedOut()
  }
  return await superviseRun(guest, {
    config,
    tool,
    args: valid,
    limits,
    globals,
    signal,
    timeoutSeconds,
    timeoutMs,
  })
}

/** One call's run on its guest, as `superviseRun` needs it. */
interface GuestRun {
  readonly config: SkillIsolationConfig
  readonly tool: SkillIsolatedTool
  readonly args: unknown
  readonly limits: IsolationLimits
  readonly globals: HostGlobals
  readonly signal: AbortSignal
  readonly timeoutSeconds: number
  /** What the queue left of the budget: the guest's own deadline. */
  readonly timeoutMs: number
}

/**
 * Runs the call on `guest` and settles it once: the result (capped, valid
 * JSON), or the guest's error; an abort or the hard deadline (the guest's
 * own plus a grace) kills the guest. Host calls still running are aborted
 * when the call settles.
 */
function superviseRun(guest: IsolatedGuest, run: GuestRun): Promise<IsolatedToolResult> {
  const { config, tool, limits, signal, timeoutSeconds } = run
  return new Promise<IsolatedToolResult>((resolve, reject) => {
    const calls = new AbortController()
    let done = false
    const finish = (kill: boolean, settle: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      calls.abort()
      if (kill) guest.kill()
      settle()
    }
    const onAbort = () => finish(true, () => reject(abortedError()))
    const timer = setTimeout(
      () =>
        finish(true, () => reject(timeoutError(tool, timeoutSeconds, config.maxTimeoutSeconds))),
      run.timeoutMs + HARD_KILL_GRACE_MS,
    )
    signal.addEventListener('abort', onAbort, { once: true })
    guest
      .run({
        source: tool.source,
        args: run.args,
        timeoutMs: run.timeoutMs,
        callGlobal: (name, callArgs, guestSignal) =>
          callHostGlobal(run.globals, name, callArgs, AbortSignal.any([guestSignal, calls.signal])),
      })
      .then(
        (result) => finish(false, () => settleResult(result, limits, resolve, reject)),
        (err) =>
          finish(!SkillHostError.isInstance(err), () => {
            if (SkillHostError.is(err, 'E_SKILL_ISOLATED_TIMEOUT')) {
              reject(timeoutError(tool, timeoutSeconds, config.maxTimeoutSeconds, err.data))
            } else reject(asIsolatedError(err, 'The guest failed unexpectedly.'))
          }),
      )
  })
}

/**
 * Waits for a guest, but not past an abort or the call's deadline; a guest
 * that arrives late is killed (for a pool lease, that only returns it). The
 * resolver sees one signal for both, so a pool drops the waiter at once.
 */
function obtainGuest(
  resolve: (waitSignal: AbortSignal) => Promise<IsolatedGuest>,
  signal: AbortSignal,
  budgetMs: number,
  queuedOut: () => SkillHostError,
): Promise<IsolatedGuest> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), budgetMs)
  const waitSignal = AbortSignal.any([signal, deadline.signal])
  return new Promise((settle, reject) => {
    const fail = () => reject(signal.aborted ? abortedError() : queuedOut())
    const cleanup = () => {
      clearTimeout(timer)
      waitSignal.removeEventListener('abort', fail)
    }
    waitSignal.addEventListener('abort', fail, { once: true })
    let pending: Promise<IsolatedGuest>
    try {
      pending = Promise.resolve(resolve(waitSignal))
    } catch (err) {
      pending = Promise.reject(err)
    }
    pending.then(
      (guest) => {
        cleanup()
        if (waitSignal.aborted) guest.kill()
        else settle(guest)
      },
      (err) => {
        cleanup()
        if (waitSignal.aborted) fail()
        else reject(asIsolatedError(err, 'The guest runtime could not be created.'))
      },
    )
  })
}

type HostGlobals = Record<string, NonNullable<SkillIsolationConfig['globals']>[string]>

async function callHostGlobal(
  globals: HostGlobals,
  name: string,
  args: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const fn = Object.hasOwn(globals, name) ? globals[name] : undefined
  if (typeof fn !== 'function') throw new Error(`'${name}' is not a declared global.`)
  try {
    return await fn(args, { signal })
  } catch (err) {
    // The guest sees this message: only a skillhost error's model-safe message
    // crosses (never its host-only person text).
    if (SkillHostError.isInstance(err)) throw new Error(err.message)
    if (signal.aborted) throw new Error(`Host function '${name}' was aborted.`)
    throw new Error(`Host function '${name}' failed.`)
  }
}

function settleResult(
  result: GuestRunResult,
  limits: IsolationLimits,
  resolve: (r: IsolatedToolResult) => void,
  reject: (e: unknown) => void,
): void {
  const json = result?.json
  if (typeof json !== 'string') {
    reject(new SkillHostError('E_SKILL_ISOLATED_BAD_RESULT', 'The guest returned no JSON text.'))
    return
  }
  if (Buffer.byteLength(json) > limits.maxResultBytes) {
    reject(
      new SkillHostError(
        'E_SKILL_ISOLATED_BAD_RESULT',
        `The tool's result is larger than ${limits.maxResultBytes} bytes of JSON; return less, or a summary.`,
      ),
    )
    return
  }
  try {
    // A guest is not trusted to produce valid JSON; parsing cannot pollute
    // prototypes (`__proto__` becomes an own key) and the value is dropped.
    JSON.parse(json)
  } catch {
    reject(
      new SkillHostError('E_SKILL_ISOLATED_BAD_RESULT', 'The guest returned invalid JSON text.'),
    )
    return
  }
  resolve({
    json,
    console: Array.isArray(result.console) ? result.console : [],
    consoleTruncated: result.consoleTruncated === true,
  })
}

function abortedError(): SkillHostError {
  return new SkillHostError('E_ABORTED', 'The call was aborted; its guest was killed.')
}

function timeoutError(
  tool: SkillIsolatedTool,
  seconds: number,
  max: number,
  data?: Readonly<Record<string, unknown>>,
): SkillHostError {
  return new SkillHostError(
    'E_SKILL_ISOLATED_TIMEOUT',
    `Isolated tool '${tool.name}' ran past its ${seconds}s timeout and was killed; do less per call or pass a larger timeout_seconds (max ${max}).`,
    data ? { data } : {},
  )
}

function queuedTimeoutError(seconds: number, max: number): SkillHostError {
  return new SkillHostError(
    'E_SKILL_ISOLATED_TIMEOUT',
    `The call waited for a free guest past its ${seconds}s timeout; nothing ran. The host is busy: retry later, or pass a larger timeout_seconds (max ${max}).`,
    { data: { queued: true } },
  )
}

function asIsolatedError(err: unknown, fallback: string): SkillHostError {
  if (
    SkillHostError.isInstance(err) &&
    (ISOLATED_CODES.has(err.code) || err.code === 'E_ABORTED')
  ) {
    return err
  }
  if (SkillHostError.isInstance(err) && err.code === 'E_INVALID_SKILLS_CONFIG') return err
  return new SkillHostError('E_SKILL_ISOLATED_GUEST_FAILED', fallback, { cause: err })
}
