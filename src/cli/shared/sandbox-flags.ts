import { SkillHostError } from '../../common/index.js'
import {
  assertInterpreterProgram,
  assertReadPath,
  type ScriptSandboxOptions,
  scriptInterpreters,
} from '../../tiers/scripts/index.js'
import type { HelpItem } from './help-text.js'
import { UsageError } from './parse-args.js'

/** The repeatable flags `serve`, `run` and `validate` share to shape the script sandbox. */
export const SANDBOX_LIST_FLAGS = ['interpreter', 'read-path'] as const

/** The help items of those flags, for each command's options list. */
export const SANDBOX_FLAGS_HELP: readonly HelpItem[] = [
  {
    term: '--interpreter NAME=PATH',
    text: "allow interpreter NAME as the executable at absolute PATH (repeatable; replaces a default of that name). A PATH outside /usr (a venv's bin/python, nvm's node) has its prefix bound read-only",
  },
  { term: '--read-path DIR', text: 'let scripts read DIR, read-only (repeatable)' },
]

/** The deployer's sandbox flags, checked. */
export interface SandboxFlags {
  /** Name → absolute program path, from `--interpreter NAME=PATH`. */
  readonly interpreters: Readonly<Record<string, string>>
  /** From `--read-path DIR`. */
  readonly readPaths: readonly string[]
}

function usage(err: unknown, flag: string): never {
  if (SkillHostError.isInstance(err))
    throw new UsageError(`--${flag}: ${err.message.replace(/^scripts: /, '')}`)
  throw err
}

/**
 * Parses `--interpreter NAME=PATH` and `--read-path DIR` values. Each is
 * checked by the rule the sandbox itself applies (`assertInterpreterProgram`,
 * `assertReadPath`): a malformed, relative, missing or non-executable entry,
 * an odd name, `/` or a directory holding the home is a `UsageError` (exit 2).
 */
export function parseSandboxFlags(
  lists: Readonly<Record<string, readonly string[]>>,
): SandboxFlags {
  const interpreters: Record<string, string> = Object.create(null)
  for (const entry of lists.interpreter ?? []) {
    const eq = entry.indexOf('=')
    if (eq <= 0) throw new UsageError(`--interpreter needs NAME=PATH, not "${entry}"`)
    const name = entry.slice(0, eq)
    try {
      interpreters[name] = assertInterpreterProgram(name, entry.slice(eq + 1))
    } catch (err) {
      usage(err, 'interpreter')
    }
  }
  const readPaths: string[] = []
  for (const dir of lists['read-path'] ?? []) {
    try {
      readPaths.push(assertReadPath(dir))
    } catch (err) {
      usage(err, 'read-path')
    }
  }
  return { interpreters, readPaths }
}

/** The `createScriptSandbox` options the flags ask for: the default allow-list plus the flags. */
export function sandboxOptionsFrom(flags: SandboxFlags): ScriptSandboxOptions {
  return {
    interpreters: scriptInterpreters(flags.interpreters),
    ...(flags.readPaths.length > 0 ? { readPaths: flags.readPaths } : {}),
  }
}
