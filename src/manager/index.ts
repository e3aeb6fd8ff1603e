export { createSkillManager } from './create-skill-manager.js'
export { LIFECYCLE_TOOL_NAMES } from './preflight.js'
export type * from './types.js'
