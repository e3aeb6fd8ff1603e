/**
 * Tier 3 on demand: the manager reaches `tiers/scripts/tier.ts` only through
 * `loadScriptTier`, a dynamic import made when a configuration has
 * `scripts`, as tier 2's guests are reached through `resolveGuest`. So
 * importing `skillhost`, or running a manager without scripts, loads no file
 * of tier 3 (test/lazy-script-tier.test.ts).
 */

/** Tier 3's internal face, as the manager and the lifecycle tools use it. */
export type ScriptTier = typeof import('../tiers/scripts/tier.js')

let loaded: ScriptTier | undefined

/** Loads tier 3 (once per process) and remembers it for `loadedScriptTier`. */
export async function loadScriptTier(): Promise<ScriptTier> {
  loaded ??= await import('../tiers/scripts/tier.js')
  return loaded
}

/**
 * Tier 3 once a manager with scripts has loaded it, else `undefined`. For the
 * synchronous callers (`forgeSkillTools`): every manager with a session
 * workspace or a script tool awaited `loadScriptTier` when it was created.
 */
export function loadedScriptTier(): ScriptTier | undefined {
  return loaded
}
