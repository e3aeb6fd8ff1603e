/**
 * `skillhost/sandbox`: tier-3 scripts. The bubblewrap handle, the on-disk
 * workspace, the path translator, policy derivation and the script helpers.
 * Node-only (child processes); never imported by the root entry.
 */

export {
  type BubblewrapHandleOptions,
  createBubblewrapHandle,
  DEFAULT_SANDBOX_LIMITS,
} from '../../sandbox/bubblewrap-handle.js'
export {
  type BwrapArgsInput,
  type BwrapCommand,
  type BwrapDataFile,
  buildBwrapArgs,
  buildBwrapCommand,
  type HostPathFact,
  sandboxBaseEnv,
} from '../../sandbox/bwrap-args.js'
export {
  createDirectoryWorkspace,
  type DirectoryWorkspace,
  type DirectoryWorkspaceOptions,
} from '../../sandbox/directory-workspace.js'
export {
  CERTIFICATE_PATHS,
  hostCertificatePaths,
  minimalEtcFiles,
  SANDBOX_USER_NAME,
  type SandboxIdentity,
  type SyntheticFile,
} from '../../sandbox/minimal-etc.js'
export { pidsInNamespace } from '../../sandbox/namespace-reaper.js'
export { createPathTranslator, type PathTranslatorOptions } from '../../sandbox/path-translator.js'
export {
  assertPolicySubset,
  type DerivePolicyInput,
  derivePolicy,
  emptyPolicy,
  isPathInside,
  normalizeAbsolutePath,
  type SandboxPolicy,
} from '../../sandbox/policy.js'
export {
  DEFAULT_WORKSPACE_MAX_BYTES,
  SessionWorkspace,
  type SessionWorkspaceOptions,
  type WorkspaceEntry,
} from '../../sandbox/session-workspace.js'
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
} from '../../sandbox/types.js'
export type { TreeChange } from '../../sandbox/walk-tree.js'
export {
  filesFromDirectory,
  filesFromSource,
  type SkippedLink,
  type WorkspaceFileSource,
} from '../../sandbox/workspace-files.js'
export { assertSafeArgValue, buildArgv } from './build-argv.js'
export {
  createScriptSandbox,
  credentialDenyPaths,
  type ScriptSandbox,
  type ScriptSandboxOptions,
  SYSTEM_READ_PATHS,
} from './create-script-sandbox.js'
export { type RunSkillScriptInput, runSkillScript } from './run-skill-script.js'
export { type JsonSchemaObject, scriptInputSchema } from './script-input-schema.js'
export {
  assertInterpreterProgram,
  assertReadPath,
  DEFAULT_INTERPRETER_NAMES,
  INTERPRETER_NAME,
  interpreterReadPrefixes,
  scriptInterpreters,
} from './script-interpreters.js'
export { formatScriptAcknowledgement, settleScriptResult } from './script-outcome.js'
export {
  type ReportedChange,
  SCRIPT_PREVIEW_BYTES,
  WORKSPACE_SPOOL_LIMITS,
} from './script-report.js'
export { scriptToolName } from './script-tool-name.js'
export type { ManagerWorkspace } from './session-workspace-slot.js'
export type {
  ScriptRunResult,
  ScriptWorkspaceReport,
  SkillScript,
  SkillScriptConfig,
  SkillScriptParam,
  SkillScriptParamType,
} from './types.js'
export { type InterpreterChoice, interpreterFor } from './undeclared-interpreter.js'
export { validateSkillScriptConfig } from './validate-script-config.js'
export {
  TIMEOUT_PARAM,
  type ValidatedSkillScript,
  validateSkillScript,
} from './validate-skill-script.js'
