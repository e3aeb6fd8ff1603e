import type { DoorRefusal } from '../../common/door/copy-out.js'
import type { ProvisionOptions } from './deps/provision-env.js'
import type { SandboxPolicy } from './policy/policy.js'
import type {
  PathMount,
  PathTranslator,
  SandboxHandle,
  SandboxLimits,
  SkillWorkspace,
} from './sandbox/types.js'
import type { TreeChange } from './workspace/diff-trees.js'

/** The JSON value types a script parameter may take. */
export type SkillScriptParamType = 'string' | 'number' | 'integer' | 'boolean' | 'enum'

/**
 * One typed script parameter. Flags render as `--name value` (booleans as
 * `--name`, only when true); `positional: true` renders the bare value and
 * must be `required`.
 */
export interface SkillScriptParam {
  readonly name: string
  readonly type: SkillScriptParamType
  /** The allowed values of an `enum` parameter. */
  readonly values?: readonly string[]
  readonly required?: boolean
  readonly positional?: boolean
  readonly description?: string
}

/** A script a skill ships, as its descriptor declares it. */
export interface SkillScript {
  readonly name: string
  /** Relative to the skill root; normalized by `normalizeSkillPath`. */
  readonly path: string
  readonly description: string
  /** A key of the deployer's `interpreters` allow-list. */
  readonly interpreter: string
  readonly params?: readonly SkillScriptParam[]
}

/** One interpreter as scripts see it (see `SkillScriptConfig.interpreterViews`). */
export interface InterpreterSandboxView {
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
  readonly version?: string
}

/**
 * The deployer's tier-3 configuration. Everything a script may use is listed
 * here; nothing a skill declares widens it.
 */
export interface SkillScriptConfig {
  readonly handle: SandboxHandle
  readonly workspace: SkillWorkspace
  /** The session policy every per-call policy must stay within. */
  readonly policy: SandboxPolicy
  readonly translator: PathTranslator
  /** Interpreter name → argv prefix with an absolute program path, e.g. `{ sh: ['/bin/sh'] }`. */
  readonly interpreters: Readonly<Record<string, readonly string[]>>
  /**
   * How scripts see the interpreters that live outside the system
   * directories (a user's pyenv python, a venv): name → the argv prefix at
   * sandbox paths, the variables it needs there, its version. A name without
   * an entry runs as `interpreters` gives it. The host directories behind
   * them are in `interpreterReadPaths` and mapped by the translator.
   */
  readonly interpreterViews?: Readonly<Record<string, InterpreterSandboxView>>
  /** The host directories behind `interpreterViews` and where each call sees them. */
  readonly interpreterMounts?: readonly PathMount[]
  /**
   * Off by default: a python script whose declared requirements its
   * interpreter lacks is `E_SKILL_SCRIPT_DEPS_MISSING`. Set, such a script
   * runs in an environment built for its requirement set outside the
   * sandbox (`provisionEnv`) and bound read-only; `cacheDir` must lie
   * inside the session policy's read entries.
   */
  readonly provision?: ProvisionOptions
  /**
   * Folders of the deployer's that skillhost keeps its own state in
   * (`serve`'s state folder with its spools, lockfiles): with the skill
   * copies, scratch, workspaces, sandbox base and environment cache, no
   * permission grant reaches them (`skillhostOwnFolders`).
   */
  readonly ownFolders?: readonly string[]
  /** What interpreters may read besides the skill root; explicit even when empty. */
  readonly interpreterReadPaths: readonly string[]
  readonly maxTimeoutSeconds: number
  readonly defaultTimeoutSeconds: number
  /** Total stdout + stderr bytes kept per call. */
  readonly maxOutputBytes: number
  /** Must be `true`: the child gets `env: {}`. Anything else is a configuration error. */
  readonly hostEnvIsolated: true
  /** Default `true`: a nonzero exit throws `E_SKILL_SCRIPT_FAILED`. */
  readonly failOnNonzeroExit?: boolean
  /** Per-call resource limits, overriding the handle's defaults. */
  readonly limits?: SandboxLimits
  /**
   * Whether a loaded skill's files without a declaration may run, through one
   * `run_<skill>_script` tool, when their interpreter (by shebang or
   * extension) is in `interpreters`. Default `'deny'`.
   */
  readonly undeclared?: 'allow' | 'deny'
  /**
   * Whether a loaded skill's dynamic-context commands (`` !`command` `` in
   * its body, as Claude Code runs them) run at load, each gated and sandboxed
   * like a script call with the workspace as cwd, their output replacing
   * them. Default `'off'`: each is left in the body with a note saying so.
   */
  readonly dynamicContext?: 'run' | 'off'
  /**
   * The conversation's workspace, mounted read-write at `/work` and the cwd
   * of every call: a deployer's directory (`dir`, kept), or by default a fresh
   * private one per manager, removed on dispose. `maxBytes` caps the regular
   * files it holds (default 1 GiB). The directory must lie inside
   * `policy.filesystem.allowWrite`.
   */
  readonly sessionWorkspace?: {
    readonly dir?: string
    readonly maxBytes?: number
    /** Most entries (files, folders, links, `.git` and `node_modules` included); default 50,000. */
    readonly maxEntries?: number
  }
}

/** What one script call produced; output text is decoded and host paths are redacted. */
export interface ScriptRunResult {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly aborted: boolean
  readonly stdout: string
  readonly stderr: string
  /** True when output past `maxOutputBytes` was dropped. */
  readonly truncated: boolean
  /** Total bytes the script wrote to stdout and stderr, kept or dropped. */
  readonly bytes: number
  /** What the call did to the session workspace, when it ran with one. */
  readonly workspace?: ScriptWorkspaceReport
}

/** The session workspace after one call: what changed, and how full it is. */
export interface ScriptWorkspaceReport {
  /** Files (and symlinks) the call created, modified or deleted, by path. */
  readonly changes: readonly TreeChange[]
  /** False when the workspace had more entries than a walk tracks, so changes may be missing. */
  readonly complete: boolean
  readonly bytes: number
  readonly maxBytes: number
  /** True when the call was killed for growing the workspace past `maxBytes`. */
  readonly overCap: boolean
  /**
   * Version-control state (`.git`, `.hg`, `.svn`, at any depth) the call made
   * in a deployer's folder, removed after it by the door; each is also in
   * `changes` as created.
   */
  readonly removed?: readonly DoorRefusal[]
}
