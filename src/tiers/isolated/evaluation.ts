import type { GuestConsoleEntry, IsolationLimits } from './types.js'
import type { WasmModule } from './wasm-api.js'

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
  wasmModule: WasmModule
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
