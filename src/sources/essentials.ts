/**
 * What a host needs from the sources to build an agent: the two built-in
 * sources, the conventional roots, reading a lockfile, and the types the
 * manager's catalog hands back. The root entry (`skillhost`) re-exports this
 * module whole; `skillhost/sources` re-exports it beside the rest (writing
 * lockfiles, limits, the types a source author implements).
 */

export { defineSkill, type SkillDefinition } from './define-skill.js'
export {
  type DefaultSkillRootsOptions,
  defaultSkillRoots,
} from './discovery/default-skill-roots.js'
export {
  FileSystemSkillSource,
  type FileSystemSkillSourceOptions,
} from './file-system-skill-source.js'
export { InMemorySkillSource, type InMemorySkillSourceOptions } from './in-memory-skill-source.js'
export { readSkillLock } from './lock/read-skill-lock.js'
export type { SkillLock } from './lock/skill-lock.js'
export type { SkillPin } from './lock/skill-pins.js'
export type {
  DiscoveredSkill,
  SkillProblem,
  SkillSource,
  UnavailableTool,
  UnavailableToolReason,
} from './types.js'
