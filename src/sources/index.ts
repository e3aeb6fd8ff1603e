/**
 * `skillhost/sources`: everything about where skills come from. The share a
 * host needs to build an agent is `essentials.ts` (also in the root entry);
 * beside it: writing and parsing lockfiles, the source limits, the byte
 * stream helpers and the types a `SkillSource` author implements (check one
 * with `skillhost/conformance`).
 */
export {
  fileSystemCopyKey,
  formatSkillCopyRef,
  MAX_SKILL_REF_LENGTH,
  type ParsedSkillRef,
  parseSkillRef,
  skillCopyKey,
} from '../skill-model/skill-copy-ref.js'
export { UNAVAILABLE_TOOL_ENABLE } from '../skill-model/unavailable-tool.js'
export * from './essentials.js'
export type { DeclaredSkill } from './file-system-skill-source.js'
export { diffSkillLocks, type SkillLockDrift } from './lock/lock-drift.js'
export {
  type LockedEnvironment,
  type LockedPackage,
  MAX_LOCKED_ENVIRONMENTS,
  MAX_LOCKED_PACKAGES,
} from './lock/lock-environments.js'
export { type LockableSkillSource, type LockSkillsOptions, lockSkills } from './lock/lock-skills.js'
export {
  formatSkillLock,
  MAX_SKILL_LOCK_BYTES,
  MAX_SKILL_LOCK_FILES,
  parseSkillLock,
  SKILL_LOCK_VERSION,
  type SkillLockEntry,
  type SkillLockFile,
  type SkillLockVersion,
} from './lock/skill-lock.js'
export { notPinnedError } from './lock/skill-pins.js'
export { bytesToStream, streamToBytes } from './reading/bytes-to-stream.js'
export {
  isSkillFileDigest,
  SKILL_FILE_DIGEST_PATTERN,
  type SkillFileManifest,
  type SkillManifestBounds,
  type SkillManifestFile,
  type SkillManifestOptions,
  skillFileDigest,
} from './reading/skill-manifest.js'
export { DEFAULT_SOURCE_LIMITS, type SkillSourceLimits } from './source-limits.js'
export type {
  DiscoverOptions,
  DiscoveryProgress,
  PermissionOutcome,
  PermissionOutcomeReason,
  PluginFiles,
  SkillDescriptor,
  SkillFileStat,
  SkillIsolatedToolDeclaration,
  SkillPermissionRequest,
  SkillRef,
  SkillScriptDeclaration,
  SkillScriptParamDeclaration,
  SkillSnapshot,
  SourceReadOptions,
} from './types.js'
