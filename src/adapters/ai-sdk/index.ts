export { createSkillTools, type SkillTools, type SkillToolsOptions } from './create-skill-tools.js'
export { renderProjectedSkills } from './render-skill-context.js'
export {
  type SkillToolBinaryPart,
  SkillToolCallError,
  type SkillToolOutput,
  skillToolModelOutput,
  toAiSdkTool,
  toSkillToolOutput,
} from './to-ai-sdk-tool.js'
