/**
 * The internal entry of `skill-model/`: what the adapters use of this layer
 * beyond its public entry (it has none: its rules reach users through
 * `manifest/` and `sources/`). Not in package.json `exports`, so no user of
 * the package can import it, and it may change with any release. The
 * adapters reach other layers only through their public entries and internal
 * entries like this one, as the CLI does (test/layering.test.ts).
 */

export type { SkillPermissionRequest } from './permission-request.js'
export { normalizeSkillPath } from './skill-path.js'
export { unavailableTool } from './unavailable-tool.js'
