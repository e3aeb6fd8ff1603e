/**
 * `skillhost/manifest`: SKILL.md and its `skillhost.yaml` sidecar, read and
 * checked the way the sources and `skillhost validate` do: parsing, the
 * agentskills.io rules, skill names, description caps. A host that only
 * serves skills does not need it; a linter or a custom source does.
 */

export type { PermissionRequestParse } from '../skill-model/permission-request.js'
export { isHostPermissionPath } from '../skill-model/permission-request.js'
export { normalizeSkillPath } from '../skill-model/skill-path.js'
export {
  capDescription,
  MAX_DESCRIPTION_CHARS,
  TRUNCATION_MARK,
} from './cap-description.js'
export { IGNORED_CLAUDE_CODE_KEYS, type IgnoredKey, ignoredKeys } from './claude-code-keys.js'
export { decodeSkillText } from './decode-skill-text.js'
export { OPENAI_YAML_FILE, parseOpenAiYaml } from './parse-openai-yaml.js'
export {
  DEFAULT_MAX_ALIAS_COUNT,
  DEFAULT_MAX_FRONTMATTER_BYTES,
  type ParsedSkillMd,
  type ParseSkillMdOptions,
  parseSkillMd,
} from './parse-skill-md.js'
export {
  parseSkillSidecar,
  type SidecarIsolatedTool,
  SKILL_SIDECAR_FILE,
  type SkillSidecar,
} from './parse-skill-sidecar.js'
export {
  isValidSkillName,
  MAX_SKILL_NAME_LENGTH,
  skillNameProblems,
} from './skill-name-problems.js'
export {
  KNOWN_FRONTMATTER_KEYS,
  MANIFEST_LIMITS,
  type SkillManifest,
  type SkillManifestValidation,
  type ValidateSkillManifestOptions,
  validateSkillManifest,
} from './validate-skill-manifest.js'
