/**
 * `skillhost/sandbox`: tier-3 scripts. The bubblewrap handle, the on-disk
 * workspace, the path translator, policy derivation and the script helpers.
 * Node-only (child processes); never imported by the root entry.
 */

export * from '../tiers/scripts/index.js'
export {
  type BubblewrapHandleOptions,
  createBubblewrapHandle,
  DEFAULT_SANDBOX_LIMITS,
} from './bubblewrap-handle.js'
export {
  type BwrapArgsInput,
  buildBwrapArgs,
  type HostPathFact,
  sandboxBaseEnv,
} from './bwrap-args.js'
export {
  createScriptSandbox,
  type ScriptSandbox,
  type ScriptSandboxOptions,
  SYSTEM_READ_PATHS,
} from './create-script-sandbox.js'
export {
  createDirectoryWorkspace,
  type DirectoryWorkspace,
  type DirectoryWorkspaceOptions,
} from './directory-workspace.js'
export { pidsInNamespace } from './namespace-reaper.js'
export { createPathTranslator, type PathTranslatorOptions } from './path-translator.js'
export {
  assertPolicySubset,
  type DerivePolicyInput,
  derivePolicy,
  emptyPolicy,
  isPathInside,
  normalizeAbsolutePath,
  type SandboxPolicy,
} from './policy.js'
export type {
  CallPathTranslator,
  PathMount,
  PathTranslator,
  SandboxHandle,
  SandboxLimits,
  SandboxRunRequest,
  SandboxRunResult,
  SkillWorkspace,
  WorkspaceFile,
  WorkspaceRef,
} from './types.js'
export {
  filesFromDirectory,
  filesFromSource,
  type SkippedLink,
  type WorkspaceFileSource,
} from './workspace-files.js'
