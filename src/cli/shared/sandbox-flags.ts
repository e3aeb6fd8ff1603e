import { join, resolve } from 'node:path'
import { SkillHostError } from '../../common/index.js'
import type { ProvisionOptions } from '../../tiers/scripts/index.js'
import { assertInterpreterProgram, assertReadPath } from '../../tiers/scripts/interpreter-checks.js'
import { cacheHome } from './cache-home.js'
import type { HelpItem } from './help-text.js'
import { UsageError } from './parse-args.js'

/** The repeatable flags `serve`, `run` and `validate` share to shape the script sandbox. */
export const SANDBOX_LIST_FLAGS = [
  'interpreter',
  'read-path',
  'find-links',
  'index-url',
  'env-cache',
] as const

/** The help items of those flags, for each command's options list. */
export const SANDBOX_FLAGS_HELP: readonly HelpItem[] = [
  {
    term: '--interpreter NAME=PATH',
    text: "allow interpreter NAME as the executable at absolute PATH (repeatable; replaces a default of that name). A PATH outside /usr (a venv's bin/python, nvm's node) has its prefix bound read-only",
  },
  { term: '--read-path DIR', text: 'let scripts read DIR, read-only (repeatable)' },
  {
    term: '--provision',
    text: "install python scripts' declared requirements (PEP 723, requirements.txt, pip install lines of SKILL.md) outside the sandbox into a cached venv per requirement set, bound read-only; without it a missing package is E_SKILL_SCRIPT_DEPS_MISSING",
  },
  {
    term: '--find-links DIR',
    text: 'with --provision: install only from the wheels in DIR (no index)',
  },
  { term: '--index-url URL', text: "with --provision: the package index (default: pip's own)" },
  {
    term: '--env-cache DIR',
    text: 'with --provision: where environments are kept (default $XDG_CACHE_HOME/skillhost/envs, else ~/.cache/skillhost/envs)',
  },
]

/** The deployer's sandbox flags, checked. */
export interface SandboxFlags {
  /** Name → absolute program path, from `--interpreter NAME=PATH`. */
  readonly interpreters: Readonly<Record<string, string>>
  /** From `--read-path DIR`. */
  readonly readPaths: readonly string[]
  /** From `--provision` with `--find-links`, `--index-url`, `--env-cache`. */
  readonly provision?: ProvisionOptions
}

/** Where `--provision` keeps environments without `--env-cache`. */
export function defaultEnvCache(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheHome(env), 'envs')
}

/** The provisioning the flags ask for; `--find-links` and `--index-url` exclude each other. */
export function provisionFrom(
  lists: Readonly<Record<string, readonly string[]>>,
): ProvisionOptions {
  const last = (name: string) => lists[name]?.at(-1)
  const findLinks = last('find-links')
  const indexUrl = last('index-url')
  if (findLinks !== undefined && indexUrl !== undefined)
    throw new UsageError('give --find-links or --index-url, not both')
  if (indexUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(indexUrl))
    throw new UsageError('--index-url needs an http(s) URL')
  return {
    cacheDir: resolve(last('env-cache') ?? defaultEnvCache()),
    ...(findLinks !== undefined ? { index: { findLinks: resolve(findLinks) } } : {}),
    ...(indexUrl !== undefined ? { index: indexUrl } : {}),
  }
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
  provision = false,
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
  return { interpreters, readPaths, ...(provision ? { provision: provisionFrom(lists) } : {}) }
}
