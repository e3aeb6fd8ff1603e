import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from './policy.js'
import { findOnPath, prepareUserPython, resolveUserPython } from './user-python.js'

/** What an interpreter name must look like: a letter, then letters, digits, `.`, `_`, `+`, `-`; 32 at most. */
export const INTERPRETER_NAME = /^[A-Za-z][A-Za-z0-9._+-]{0,31}$/

/**
 * What interpreters may read besides the skill: the system directories, as
 * they exist here. `/sbin` too: Debian links `/usr/bin/pidof` to `/sbin/killall5`.
 */
export const SYSTEM_READ_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib64']

/** Where the default allow-list looks for each accepted name, in order. */
const DEFAULT_LOCATIONS: Readonly<Record<string, readonly string[]>> = {
  sh: ['/bin/sh', '/usr/bin/sh'],
  bash: ['/bin/bash', '/usr/bin/bash'],
  python: ['/usr/bin/python3'],
  python3: ['/usr/bin/python3'],
  node: ['/usr/bin/node', '/usr/local/bin/node'],
}

/** The interpreter names the default allow-list accepts (each only where it is installed). */
export const DEFAULT_INTERPRETER_NAMES: readonly string[] = Object.keys(DEFAULT_LOCATIONS)

function bad(why: string): never {
  throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `scripts: ${why}`)
}

/**
 * Checks one deployer interpreter, `name` → `program`: the name matches
 * `INTERPRETER_NAME`, the program is an absolute path to an existing
 * executable regular file (symlinks followed). Returns the normalized
 * program path; throws `E_INVALID_SKILLS_CONFIG` saying what to fix.
 */
export function assertInterpreterProgram(name: string, program: string): string {
  if (typeof name !== 'string' || !INTERPRETER_NAME.test(name)) {
    bad(
      `interpreter name '${String(name)}' must start with a letter and hold only letters, digits, '.', '_', '+' or '-' (32 at most).`,
    )
  }
  const path = normalizeAbsolutePath(program)
  if (path === undefined) bad(`interpreter '${name}' must be an absolute path, not '${program}'.`)
  try {
    if (!statSync(path).isFile()) throw new Error('not a file')
    accessSync(path, constants.X_OK)
  } catch {
    bad(
      `interpreter '${name}' (${path}) does not exist or is not an executable file; give the absolute path of an installed interpreter.`,
    )
  }
  return path
}

/**
 * Names scripts use for one interpreter: setting one of them (and not the
 * others) sets them all. Skills say `python` and `python3` interchangeably.
 */
export const INTERPRETER_FAMILIES: readonly (readonly string[])[] = [['python', 'python3']]

/** Where `scriptInterpreters` looks for the user's own interpreters. */
export interface InterpreterLookup {
  /**
   * The `PATH` whose python becomes `python` and `python3` (see
   * `resolveUserPython`); default this process's. `null`: the system python only.
   */
  readonly path?: string | null
}

/**
 * The interpreter allow-list `skillhost run` and `serve` use, and the one
 * `validate` checks against: `sh`, `bash`, `python` and `python3`, `node`,
 * each where installed, then the deployer's `extra` entries (name →
 * absolute program path, checked by `assertInterpreterProgram`), which add
 * names or replace defaults. `python`, `python3` and `node` are the user's,
 * from `PATH` (`userInterpreters`: a venv, a pyenv version, an nvm node),
 * else `/usr/bin/python3` and the system node. An entry for one name of an
 * `INTERPRETER_FAMILIES` family (`python`) sets the whole family unless the
 * deployer names more than one of it.
 */
export function scriptInterpreters(
  extra: Readonly<Record<string, string>> = {},
  lookup: InterpreterLookup = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null)
  for (const [name, candidates] of Object.entries(DEFAULT_LOCATIONS)) {
    const found = candidates.find((p) => existsSync(p))
    if (found !== undefined) out[name] = [found]
  }
  const path = lookup.path === undefined ? process.env.PATH : lookup.path
  if (path !== null) Object.assign(out, userInterpreters(path))
  for (const [name, program] of Object.entries(extra))
    out[name] = [assertInterpreterProgram(name, program)]
  return withInterpreterFamilies(out, extra)
}

/**
 * The one rule for whose interpreter a script gets: the user's, from `PATH`,
 * for every family a user picks a version of. `python` and `python3` are the
 * python `PATH` offers as its own `sys.executable` names it
 * (`resolveUserPython`: a pyenv shim becomes the real interpreter, a venv
 * stays a venv); `node` is the first `node` on `PATH`, when anyone can
 * reach it (`reachableByAnyone`). A family `PATH` does not offer is left
 * out, for the system default; a deployer's entry
 * (`--interpreter`, `scripts.interpreters`) pins one over this.
 */
export function userInterpreters(path: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null)
  const python = resolveUserPython(path, SYSTEM_READ_PATHS)
  if (python !== undefined) for (const name of ['python', 'python3']) out[name] = [python]
  const node = findOnPath('node', path)
  if (node !== undefined && reachableByAnyone(node)) out.node = [node]
  return out
}

/**
 * Whether every folder above `program`, and above its real path, lets anyone through
 * (o+x), so the sandbox's user reaches it wherever it runs as: a node under
 * a 0700 home is left for the system node instead of refusing the whole
 * sandbox at setup (pythons there get a view instead, see interpreterViews).
 */
function reachableByAnyone(program: string): boolean {
  const open = (from: string): boolean => {
    for (let dir = dirname(from); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false
      if (dirname(dir) === dir) return true
    }
  }
  try {
    // Where PATH names it and where it really is: the sandbox binds both.
    return open(program) && open(realpathSync(program))
  } catch {
    return false
  }
}

/**
 * Asks the user's python where it lives (`resolveUserPython`'s probe)
 * without blocking, so a later `scriptInterpreters` with the same `lookup`
 * starts no process: a command starts this, does its other work (a
 * discovery, answering `initialize`), then awaits it. Never rejects.
 */
export async function prepareScriptInterpreters(lookup: InterpreterLookup = {}): Promise<void> {
  const path = lookup.path === undefined ? process.env.PATH : lookup.path
  if (path !== null) await prepareUserPython(path, SYSTEM_READ_PATHS).catch(() => undefined)
}

/**
 * `interpreters` with each `INTERPRETER_FAMILIES` family completed from the
 * one name of it the deployer gave in `given`: a deployer who names a python
 * for `python` means it for `python3` too (and back). A family named more
 * than once, or not at all, is left as it is. Returns a new map.
 */
export function withInterpreterFamilies<T extends readonly string[]>(
  interpreters: Readonly<Record<string, T>>,
  given: Readonly<Record<string, unknown>> = interpreters,
): Record<string, T> {
  const out: Record<string, T> = Object.assign(Object.create(null), interpreters)
  for (const family of INTERPRETER_FAMILIES) {
    const named = family.filter((name) => Object.hasOwn(given, name))
    const chosen = named.length === 1 ? interpreters[named[0]!] : undefined
    if (chosen === undefined) continue
    for (const name of family) out[name] = [...chosen] as unknown as T
  }
  return out
}

/**
 * Checks a directory scripts are to read: absolute, an existing directory,
 * not `/` and not holding the host user's home directory (which would expose
 * every file of it). Returns it normalized; throws `E_INVALID_SKILLS_CONFIG`.
 */
export function assertReadPath(path: string, what = 'read path'): string {
  const normalized = normalizeAbsolutePath(path)
  if (normalized === undefined) bad(`${what} '${path}' must be an absolute path.`)
  if (normalized === '/') bad(`${what} '/' would expose the whole host; give a narrower directory.`)
  const home = homedir()
  if (home !== '/' && isPathInside(home, normalized)) {
    bad(
      `${what} '${normalized}' holds the home directory ${home} and would expose all of it; give a narrower directory.`,
    )
  }
  let dir = false
  try {
    dir = statSync(normalized).isDirectory()
  } catch {
    // reported below
  }
  if (!dir) bad(`${what} '${normalized}' is not an existing directory.`)
  return normalized
}
