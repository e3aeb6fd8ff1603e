/**
 * What the manager wires of tier 2: the forge and the one configuration
 * validator. Internal; the public face of tier 2 is `index.ts`
 * (`skillhost/isolation`). Nothing outside `tiers/isolated/` imports any
 * other file of it (test/layering.test.ts).
 */

export { createIsolatedForge } from './isolated-forge.js'
export type { SkillIsolationConfig } from './types.js'
export { validateIsolationConfig } from './validate-isolation-config.js'
