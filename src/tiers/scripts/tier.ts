/**
 * What the layers above tier 3 wire (the manager, the lifecycle tools): the
 * forge, the session workspace slot and its tools,
 * and the one configuration validator. Internal; the public face of tier 3
 * is `index.ts` (`skillhost/sandbox`). Nothing outside `tiers/scripts/`
 * imports any other file of it (test/layering.test.ts).
 */

export { validateSkillScriptConfig } from './config/validate-script-config.js'
export type { SandboxPolicy } from './policy/policy.js'
export {
  type ScriptToolInterpreter,
  scriptToolInterpreters,
} from './tool/describe-interpreter.js'
export { createScriptForge } from './tool/script-forge.js'
export type { SkillScriptConfig } from './types.js'
export type { SessionWorkspace } from './workspace/session-workspace.js'
export {
  type ManagerWorkspace,
  SessionWorkspaceSlot,
} from './workspace/session-workspace-slot.js'
export { full, unmeasurable } from './workspace/workspace-errors.js'
export { forgeWorkspaceTools, WORKSPACE_TOOL } from './workspace/workspace-tools.js'
