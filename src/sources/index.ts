/**
 * `skillhost/sources`: everything about where skills come from. The share a
 * host needs to build an agent is `essentials.ts` (also in the root entry);
 * beside it: writing and parsing lockfiles, the source limits, the byte
 * stream helpers and the types a `SkillSource` author implements (check one
 * with `skillhost/conformance`).
 */
export { UNAVAILABLE_TOOL_ENABLE } from '../skill-model/unavailable-tool.js'
export { bytesToStream, streamToBytes } from './bytes-to-stream.js'
export * from './essentials.js'
export type { DeclaredSkill } from './file-system-skill-source.js'
export {
  type LockedEnvironment,
  type LockedPackage,
  MAX_LOCKED_ENVIRONMENTS,
  MAX_LOCKED_PACKAGES,
} from './lock-environments.js'
export { type LockSkillsOptions, lockSkills } from './lock-skills.js'
export {
  formatSkillLock,
  MAX_SKILL_LOCK_BYTES,
  parseSkillLock,
  SKILL_LOCK_VERSION,
  type SkillLockEntry,
  type SkillLockFile,
} from './skill-lock.js'
export { DEFAULT_SOURCE_LIMITS, type SkillSourceLimits } from './source-limits.js'
export type {
  DiscoverOptions,
  DiscoveryProgress,
  SkillDescriptor,
  SkillFileStat,
  SkillIsolatedToolDeclaration,
  SkillRef,
  SkillScriptDeclaration,
  SkillScriptParamDeclaration,
  SkillSnapshot,
  SourceReadOptions,
} from './types.js'
