import { SkillHostError } from '../../common/errors.js'
import type { FreshQuickJs } from './quickjs-module.js'
import type { GuestConsoleEntry, GuestRunResult, IsolationLimits } from './types.js'

/** The codes an evaluation can end with, besides success. */
export type EvaluationFailureCode =
  | 'E_SKILL_ISOLATED_TIMEOUT'
  | 'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED'
  | 'E_SKILL_ISOLATED_THREW'
  | 'E_SKILL_ISOLATED_BAD_RESULT'
  | 'E_SKILL_ISOLATED_GUEST_FAILED'
  | 'E_ABORTED'

/**
 * How one evaluation ended, as plain data: it crosses the worker boundary by
 * structured clone, so it holds only strings, numbers and booleans.
 */
export type EvaluationOutcome =
  | { ok: true; json: string; console: GuestConsoleEntry[]; consoleTruncated: boolean }
  | {
      ok: false
      code: EvaluationFailureCode
      message: string
      console: GuestConsoleEntry[]
      consoleTruncated: boolean
    }

/** One evaluation, with everything the QuickJS side needs and nothing host-owned. */
export interface EvaluationRequest {
  /** Where the fresh, prepared QuickJS comes from (see `QuickJsInstanceReserve`). */
  instances: { take(memoryBytes: number): Promise<FreshQuickJs> }
  source: string
  /** JSON text of the validated arguments. */
  argsJson: string
  timeoutMs: number
  globals: readonly string[]
  modules: Readonly<Record<string, string>>
  limits: IsolationLimits
  /**
   * Calls a host global with JSON text; resolves with the JSON text of its
   * result (or `undefined`). A rejection's message is shown to the guest, so
   * it must already be model-safe.
   */
  callGlobal(name: string, argsJson: string | undefined): Promise<string | undefined>
  /** Aborting it stops the evaluation at its next interrupt check or await. */
  stop?: AbortSignal
}

/** The longest guest-provided message kept in an error. */
export const MAX_GUEST_MESSAGE_CHARS = 1_000

/** Cuts a guest-provided message to `MAX_GUEST_MESSAGE_CHARS`. */
export function capMessage(message: string): string {
  return message.length > MAX_GUEST_MESSAGE_CHARS
    ? `${message.slice(0, MAX_GUEST_MESSAGE_CHARS)}…`
    : message
}

/**
 * Turns an outcome into what `IsolatedGuest.run` promises: the result, or a
 * `SkillHostError` whose `data` carries the console the guest wrote.
 */
export function unwrapOutcome(outcome: EvaluationOutcome): GuestRunResult {
  if (outcome.ok) {
    return {
      json: outcome.json,
      console: outcome.console,
      consoleTruncated: outcome.consoleTruncated,
    }
  }
  throw new SkillHostError(outcome.code, outcome.message, {
    data: { console: outcome.console, consoleTruncated: outcome.consoleTruncated },
  })
}

/** JSON text of a host global's result for the guest; `undefined` stays `undefined`. */
export function encodeHostResult(name: string, result: unknown): string | undefined {
  try {
    return result === undefined ? undefined : JSON.stringify(result)
  } catch {
    throw new Error(`Host function '${name}' returned a value that is not JSON.`)
  }
}

/** The model-safe message a guest sees when a host call fails. */
export function hostFailureMessage(name: string, err: unknown): string {
  // `callGlobal` (see runIsolatedTool) rejects with model-safe messages only.
  return err instanceof Error ? err.message : `Host function '${name}' failed.`
}
