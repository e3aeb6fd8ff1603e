export { UNAVAILABLE_TOOL_ENABLE } from '../skill-model/unavailable-tool.js'
export { bytesToStream, streamToBytes } from './bytes-to-stream.js'
export { type DefaultSkillRootsOptions, defaultSkillRoots } from './default-skill-roots.js'
export { defineSkill, type SkillDefinition } from './define-skill.js'
export {
  type DeclaredSkill,
  FileSystemSkillSource,
  type FileSystemSkillSourceOptions,
} from './file-system-skill-source.js'
export { InMemorySkillSource, type InMemorySkillSourceOptions } from './in-memory-skill-source.js'
export { type LockSkillsOptions, lockSkills } from './lock-skills.js'
export { readSkillLock } from './read-skill-lock.js'
export {
  formatSkillLock,
  MAX_SKILL_LOCK_BYTES,
  parseSkillLock,
  SKILL_LOCK_VERSION,
  type SkillLock,
  type SkillLockEntry,
  type SkillLockFile,
} from './skill-lock.js'
export type { SkillPin } from './skill-pins.js'
export { DEFAULT_SOURCE_LIMITS, type SkillSourceLimits } from './source-limits.js'
export type {
  DiscoveredSkill,
  DiscoverOptions,
  DiscoveryProgress,
  SkillDescriptor,
  SkillFileStat,
  SkillIsolatedToolDeclaration,
  SkillProblem,
  SkillRef,
  SkillScriptDeclaration,
  SkillScriptParamDeclaration,
  SkillSnapshot,
  SkillSource,
  SourceReadOptions,
  UnavailableTool,
  UnavailableToolReason,
} from './types.js'
