import { SkillHostError, type SkillHostErrorCode } from './errors.js'
import type { TurnContext } from './turn-context.js'

/** What a gate is asked: which tool, with which arguments, on behalf of which skill. */
export interface GateRequest {
  readonly tool: string
  readonly args: unknown
  readonly skill?: { readonly id: string; readonly version: string }
  /** The tier the call belongs to, so one gate can apply different rules. */
  readonly tier?: 'host' | 'lifecycle' | 'module' | 'isolated' | 'script' | 'workspace'
  /**
   * Tier 3, at load, once per skill version (`tool: 'skill_permissions'`,
   * `tier: 'script'`): the permission profile the skill requests
   * (`agents/openai.yaml` or `skillhost.yaml` `permissions`), reduced to the
   * absolute host paths the session policy allows. Allowing grants exactly
   * these to every script call of that version (`read` bound read-only,
   * `write` writable); refusing grants none, and the skill still loads.
   * Requests beyond the session policy, and network, are refused before the
   * gate is asked and never appear here. Absent on every other request.
   */
  readonly permissions?: {
    readonly read: readonly string[]
    readonly write: readonly string[]
  }
}

/**
 * The host's permission boundary. Resolving allows; throwing `GateDenied`
 * (see `deny`) refuses; any other throw means the gate is unavailable.
 */
export type ToolGate = (ctx: TurnContext, request: GateRequest) => void | Promise<void>

const DENIED_BRAND = Symbol.for('skillhost.gate-denied')

/** An explicit refusal from a gate. Only this counts as a refusal. */
export class GateDenied extends Error {
  override readonly name = 'GateDenied'
  readonly reason: string
  constructor(reason: string) {
    super(reason)
    this.reason = reason
    Object.defineProperty(this, DENIED_BRAND, { value: true })
  }

  /** Recognizes refusals across two copies of the package. */
  static isInstance(value: unknown): value is GateDenied {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[DENIED_BRAND] === true
    )
  }
}

/** Makes the refusal a gate throws: `throw deny('scripts are off here')`. */
export function deny(reason: string): GateDenied {
  return new GateDenied(reason)
}

/** The classified outcome of asking a gate. */
export type GateVerdict =
  | { readonly outcome: 'allow' }
  | { readonly outcome: 'refused'; readonly reason: string }
  | { readonly outcome: 'unavailable'; readonly cause: unknown }

const ALLOW: GateVerdict = Object.freeze({ outcome: 'allow' })
const NO_GATE: GateVerdict = Object.freeze({
  outcome: 'unavailable',
  cause: new Error('no gate configured'),
})

/** Classifies what a gate threw: only `GateDenied` is a refusal; anything else means unavailable. */
function classifyThrown(err: unknown): GateVerdict {
  if (GateDenied.isInstance(err)) return { outcome: 'refused', reason: err.reason }
  return { outcome: 'unavailable', cause: err }
}

/**
 * Asks the gate without waiting: a verdict when it answered synchronously
 * (returned, threw, or is missing), else the promise it returned. Both
 * `runToolGate` and `enforceToolGate` classify through here and
 * `classifyThrown`, so allow / refused / unavailable is decided in one place.
 */
function askGate(
  gate: ToolGate | undefined,
  ctx: TurnContext,
  request: GateRequest,
): GateVerdict | PromiseLike<void> {
  if (typeof gate !== 'function') return NO_GATE
  try {
    const pending = gate(ctx, request)
    return pending !== undefined && typeof (pending as PromiseLike<void>).then === 'function'
      ? (pending as PromiseLike<void>)
      : ALLOW
  } catch (err) {
    return classifyThrown(err)
  }
}

function isVerdict(value: GateVerdict | PromiseLike<void>): value is GateVerdict {
  return typeof (value as PromiseLike<void>).then !== 'function'
}

/**
 * Asks `gate` and classifies the answer: resolve → allow, `GateDenied` →
 * refused, anything else (including no gate) → unavailable. Never throws.
 */
export async function runToolGate(
  gate: ToolGate | undefined,
  ctx: TurnContext,
  request: GateRequest,
): Promise<GateVerdict> {
  const asked = askGate(gate, ctx, request)
  if (isVerdict(asked)) return asked
  try {
    await asked
    return ALLOW
  } catch (err) {
    return classifyThrown(err)
  }
}

/** The two codes a tier uses to report a refusal and an unavailable gate. */
export interface GateCodes {
  readonly refused: SkillHostErrorCode
  readonly unavailable: SkillHostErrorCode
}

/** Default codes for host, lifecycle, module and isolated tools. */
export const TOOL_GATE_CODES: GateCodes = {
  refused: 'E_TOOL_DENIED',
  unavailable: 'E_TOOL_GATE_UNAVAILABLE',
}

/** Codes for tier-3 scripts, as the reference fixes them (403 vs 503). */
export const SCRIPT_GATE_CODES: GateCodes = {
  refused: 'E_SKILL_SCRIPT_DENIED',
  unavailable: 'E_SKILL_SCRIPT_GATE_UNAVAILABLE',
}

/**
 * Runs the gate and rejects with the tier's error unless it allows. The refusal
 * reason is the host's own words and is shown; an unavailable gate's cause is
 * kept host-side only.
 */
export function enforceToolGate(
  gate: ToolGate | undefined,
  ctx: TurnContext,
  request: GateRequest,
  codes: GateCodes = TOOL_GATE_CODES,
): Promise<void> {
  let pending: PromiseLike<void> | undefined
  try {
    pending = askToolGate(gate, ctx, request, codes)
  } catch (err) {
    return Promise.reject(err)
  }
  if (pending === undefined) return RESOLVED
  return Promise.resolve(pending).then(
    () => undefined,
    (err: unknown) => {
      throw gateFailure(err, request, codes)
    },
  )
}

/**
 * `enforceToolGate` in two halves, for the one hot path that awaits the gate
 * itself (the skill-tool envelope: one promise hop fewer per call). Returns
 * undefined when the gate allowed synchronously, throws the tier's error when
 * it refused or is unavailable synchronously, else returns the gate's own
 * promise: the caller awaits it and turns a rejection into `gateFailure`.
 */
export function askToolGate(
  gate: ToolGate | undefined,
  ctx: TurnContext,
  request: GateRequest,
  codes: GateCodes = TOOL_GATE_CODES,
): PromiseLike<void> | undefined {
  const asked = askGate(gate, ctx, request)
  if (!isVerdict(asked)) return asked
  if (asked === ALLOW) return undefined
  throw gateError(asked, request, codes)
}

/** The tier's error for what an asynchronous gate rejected with (`GateDenied` → refused). */
export function gateFailure(
  err: unknown,
  request: GateRequest,
  codes: GateCodes = TOOL_GATE_CODES,
): SkillHostError {
  return gateError(classifyThrown(err), request, codes)
}

const RESOLVED = Promise.resolve()

function gateError(verdict: GateVerdict, request: GateRequest, codes: GateCodes): SkillHostError {
  if (verdict.outcome === 'refused') {
    return new SkillHostError(
      codes.refused,
      `The host refused '${request.tool}': ${verdict.reason}`,
      {
        data: { tool: request.tool },
      },
    )
  }
  return new SkillHostError(
    codes.unavailable,
    `The permission gate is unavailable, so '${request.tool}' did not run. This is not a refusal; retry later.`,
    {
      data: { tool: request.tool },
      cause: verdict.outcome === 'unavailable' ? verdict.cause : undefined,
    },
  )
}
