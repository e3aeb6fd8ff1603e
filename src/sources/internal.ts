/**
 * The internal entry of `sources/`: what the adapters use of this layer
 * beyond its public entry (`skillhost/sources`). Not in package.json
 * `exports`, so no user of the package can import it, and it may change with
 * any release. The adapters reach other layers only through their public
 * entries and internal entries like this one, as the CLI does
 * (test/layering.test.ts).
 */

export { ChangeListeners } from './discovery/change-listeners.js'
export { diffSkillFiles } from './lock/lock-drift.js'
export { checkManifestBounds } from './reading/skill-manifest.js'
