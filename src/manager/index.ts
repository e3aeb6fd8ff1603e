export { createSkillManager } from './create-skill-manager.js'
export { LIFECYCLE_TOOL, LIFECYCLE_TOOL_NAMES } from './lifecycle-tool-names.js'
export type * from './types.js'
