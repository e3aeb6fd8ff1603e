/**
 * `skillhost/ai-sdk`: a manager and a turn context as Vercel AI SDK tools
 * (`createSkillTools`): the lifecycle tools and every projected skill tool,
 * with the step hook that keeps the tool set in step with loads and
 * unloads, the catalog and loaded bodies as system text, and the tools'
 * results as AI SDK outputs. Needs the optional peer `ai`.
 */

export { createSkillTools, type SkillTools, type SkillToolsOptions } from './create-skill-tools.js'
export { renderProjectedSkills } from './render-skill-context.js'
export {
  type SkillToolBinaryPart,
  SkillToolCallError,
  type SkillToolOutput,
  type SkillToolOutputWithFiles,
  skillToolModelOutput,
  toAiSdkTool,
  toSkillToolOutput,
} from './to-ai-sdk-tool.js'
export type { SkillToolWorkspaceFile } from './workspace-file-parts.js'
