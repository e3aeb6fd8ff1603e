import type { ScriptOutcome, ScriptRunResult } from '../../src/tiers/scripts/internal.js'

/**
 * The run's result of a script call's outcome (`runScriptOnce`), or its
 * refusal thrown: for tests that look at what ran, and at a refusal's code
 * with `codeOf`.
 */
export async function ranResult(outcome: Promise<ScriptOutcome>): Promise<ScriptRunResult> {
  const o = await outcome
  if (!o.ran) throw o.error
  return o.result
}
