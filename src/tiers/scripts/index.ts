/**
 * `skillhost/sandbox`: tier 3, scripts under bubblewrap, as a deployer sees
 * it. `createScriptSandbox` builds a whole configuration for
 * `createSkillManager({ scripts })`; the building blocks (`createBubblewrapHandle`,
 * `createDirectoryWorkspace`, `createPathTranslator`), the contracts they
 * implement and the configuration's types are here for a deployer who
 * assembles their own. At most 40 names (test/api-report.test.ts): helpers the
 * CLI shares live in the internal entry `internal.ts`, not here. Node-only
 * (child processes); never imported by the root entry.
 *
 * Its folders are the stages a call passes, lowest first: `policy/` (what a
 * call may touch), `sandbox/` (the bubblewrap handle, its argv, the path
 * translator), `workspace/` (the session's `/work`), `skill-copy/` (a skill's
 * files at `/skill`), `deps/` (declared requirements and provisioned
 * environments), `run/` (one call, owned by `runScriptCall`), `tool/` (the
 * model's script tools) and `config/` (the deployer's configuration).
 */

export {
  createScriptSandbox,
  credentialDenyPaths,
  DEFAULT_WARM_IDLE_MS,
  type ScriptSandbox,
  type ScriptSandboxOptions,
} from './config/create-script-sandbox.js'
export { validateSkillScriptConfig } from './config/validate-script-config.js'
export { lockedProvision } from './deps/locked-provision.js'
export type {
  PackageIndex,
  PinnedPackage,
  ProvisionBuild,
  ProvisionOptions,
} from './deps/provision-env.js'
export type { SandboxPolicy } from './policy/policy.js'
export { scriptInterpreters, withInterpreterFamilies } from './policy/script-interpreters.js'
export {
  type BubblewrapHandleOptions,
  createBubblewrapHandle,
  DEFAULT_SANDBOX_LIMITS,
} from './sandbox/bubblewrap-handle.js'
export { createPathTranslator, type PathTranslatorOptions } from './sandbox/path-translator.js'
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
} from './sandbox/types.js'
export {
  createDirectoryWorkspace,
  type DirectoryWorkspace,
  type DirectoryWorkspaceOptions,
} from './skill-copy/directory-skill-copies.js'
export type {
  InterpreterSandboxView,
  SkillScript,
  SkillScriptConfig,
  SkillScriptParam,
  SkillScriptParamType,
} from './types.js'
export { SessionWorkspace, type WorkspaceEntry } from './workspace/session-workspace.js'
export type { ManagerWorkspace } from './workspace/session-workspace-slot.js'
