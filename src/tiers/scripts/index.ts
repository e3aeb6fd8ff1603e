/**
 * `skillhost/sandbox`: tier-3 scripts. The bubblewrap handle, the on-disk
 * workspace, the path translator, policy derivation and the script helpers.
 * Node-only (child processes); never imported by the root entry.
 */

export {
  type CopyOutReport,
  copyOut,
  type DoorRefusal,
  type FileSeen,
} from '../../common/door/copy-out.js'
export {
  createScriptSandbox,
  credentialDenyPaths,
  type ScriptSandbox,
  type ScriptSandboxOptions,
  SYSTEM_READ_PATHS,
} from './config/create-script-sandbox.js'
export { validateSkillScriptConfig } from './config/validate-script-config.js'
export { lockedProvision, lockPins } from './deps/locked-provision.js'
export type {
  EnvNotPinnedReason,
  PackageIndex,
  PinnedPackage,
  ProvisionBuild,
  ProvisionedEnv,
  ProvisionOptions,
} from './deps/provision-env.js'
export {
  type DeclaredRequirements,
  readPep723,
  readRequirementsTxt,
  readSkillMdInstalls,
} from './deps/read-requirements.js'
export { parseRequirement, type Requirement } from './deps/requirement.js'
export { provisionedInterpreter } from './deps/script-env.js'
export { scriptRequirements } from './deps/script-requirements.js'
export {
  PERMISSIONS_GATE_TOOL,
  PermissionGrants,
  type PermissionJudgement,
} from './policy/permission-grants.js'
export {
  assertPolicySubset,
  type DerivePolicyInput,
  derivePolicy,
  emptyPolicy,
  grantPolicy,
  isPathInside,
  normalizeAbsolutePath,
  type PolicyGrant,
  type SandboxPolicy,
} from './policy/policy.js'
export {
  assertInterpreterProgram,
  assertReadPath,
  DEFAULT_INTERPRETER_NAMES,
  INTERPRETER_FAMILIES,
  INTERPRETER_NAME,
  type InterpreterLookup,
  interpreterReadPrefixes,
  prepareScriptInterpreters,
  scriptInterpreters,
  withInterpreterFamilies,
} from './policy/script-interpreters.js'
export { type InterpreterChoice, interpreterFor } from './policy/undeclared-interpreter.js'
export {
  describePython,
  findOnPath,
  type PythonLayout,
  resolveUserPython,
} from './policy/user-python.js'
export { assertSafeArgValue, buildArgv } from './run/build-argv.js'
export {
  type RunScriptOnceInput,
  runScriptOnce,
  type ScriptOnceCall,
} from './run/run-script-once.js'
export { type RunSkillScriptInput, runSkillScript } from './run/run-skill-script.js'
export { formatScriptAcknowledgement, settleScriptResult } from './run/script-outcome.js'
export {
  type ReportedChange,
  SCRIPT_PREVIEW_BYTES,
  WORKSPACE_SPOOL_LIMITS,
} from './run/script-report.js'
export {
  type BubblewrapHandleOptions,
  createBubblewrapHandle,
  DEFAULT_SANDBOX_LIMITS,
} from './sandbox/bubblewrap-handle.js'
export {
  type BwrapArgsInput,
  type BwrapCommand,
  type BwrapDataFile,
  buildBwrapArgs,
  buildBwrapCommand,
  type HostPathFact,
  sandboxBaseEnv,
} from './sandbox/bwrap-args.js'
export {
  CERTIFICATE_PATHS,
  hostCertificatePaths,
  hostToolConfigPaths,
  minimalEtcFiles,
  SANDBOX_USER_NAME,
  type SandboxIdentity,
  type SyntheticFile,
  TOOL_CONFIG_PATHS,
} from './sandbox/minimal-etc.js'
export { pidsInNamespace } from './sandbox/namespace-reaper.js'
export { createPathTranslator, type PathTranslatorOptions } from './sandbox/path-translator.js'
export type {
  CallPathTranslator,
  PathMount,
  PathTranslator,
  ResolvedSandboxLimits,
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
} from './skill-copy/directory-workspace.js'
export {
  filesFromDirectory,
  filesFromSource,
  type SkippedLink,
  type WorkspaceFileSource,
} from './skill-copy/workspace-files.js'
export {
  describeInterpreter,
  type RunsWith,
  type ScriptToolInterpreter,
} from './tool/describe-interpreter.js'
export {
  previewScriptTools,
  type ScriptToolsPreview,
  type ScriptToolsPreviewOptions,
} from './tool/preview-script-tools.js'
export { type JsonSchemaObject, scriptInputSchema } from './tool/script-input-schema.js'
export { scriptToolName } from './tool/script-tool-name.js'
export {
  TIMEOUT_PARAM,
  type ValidatedSkillScript,
  validateSkillScript,
} from './tool/validate-skill-script.js'
export type {
  InterpreterSandboxView,
  ScriptRunResult,
  ScriptWorkspaceReport,
  SkillScript,
  SkillScriptConfig,
  SkillScriptParam,
  SkillScriptParamType,
} from './types.js'
export type { TreeChange } from './workspace/diff-trees.js'
export {
  DEFAULT_WORKSPACE_MAX_BYTES,
  SessionWorkspace,
  type SessionWorkspaceOptions,
  type WorkspaceEntry,
} from './workspace/session-workspace.js'
export type { ManagerWorkspace } from './workspace/session-workspace-slot.js'
export { checkWorkspaceDir, withWorkspaceDir } from './workspace/session-workspace-slot.js'
