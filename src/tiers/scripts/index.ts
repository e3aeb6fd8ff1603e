export { assertSafeArgValue, buildArgv } from './build-argv.js'
export { type RunSkillScriptInput, runSkillScript } from './run-skill-script.js'
export { type JsonSchemaObject, scriptInputSchema } from './script-input-schema.js'
export { formatScriptAcknowledgement, settleScriptResult } from './script-outcome.js'
export { scriptToolName } from './script-tool-name.js'
export type {
  ScriptRunResult,
  SkillScript,
  SkillScriptConfig,
  SkillScriptParam,
  SkillScriptParamType,
} from './types.js'
export { validateSkillScriptConfig } from './validate-script-config.js'
export {
  TIMEOUT_PARAM,
  type ValidatedSkillScript,
  validateSkillScript,
} from './validate-skill-script.js'
