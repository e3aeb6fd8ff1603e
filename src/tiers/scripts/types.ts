import type { SandboxPolicy } from '../../sandbox/policy.js'
import type {
  PathTranslator,
  SandboxHandle,
  SandboxLimits,
  SkillWorkspace,
} from '../../sandbox/types.js'

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
}
