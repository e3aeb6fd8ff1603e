import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { isPathInside, normalizeAbsolutePath } from './policy.js'
import { rememberedProbe, rememberProbe } from './python-probe-cache.js'

/** What a python interpreter says about itself (`describePython`). */
export interface PythonLayout {
  /** `sys.executable`: the program as the interpreter names it (a venv's `bin/python3`, not a pyenv shim). */
  readonly executable: string
  /** Its real path, symlinks resolved (the base interpreter's binary for a venv). */
  readonly realExecutable: string
  /** `sys.prefix`: the venv's root for a venv, else the installation prefix. */
  readonly prefix: string
  /** `sys.base_prefix`: the installation the venv was made from (equal to `prefix` outside a venv). */
  readonly basePrefix: string
  /** `major.minor.micro`. */
  readonly version: string
  /** The directory holding a shared libpython (`sysconfig` LIBDIR), when there is one. */
  readonly libDir?: string
  /** For a venv: whether it sees the base installation's site-packages (`pyvenv.cfg`). */
  readonly systemSitePackages: boolean
}

// Printed as one JSON line; nothing of the caller's environment shapes it (-I).
const PROBE = [
  'import json, os, sys, sysconfig',
  'cfg = os.path.join(sys.prefix, "pyvenv.cfg")',
  'ssp = False',
  'if sys.prefix != sys.base_prefix and os.path.isfile(cfg):',
  '    ssp = any(l.replace(" ", "").lower() == "include-system-site-packages=true" for l in open(cfg).read().splitlines())',
  'print(json.dumps({"executable": sys.executable, "prefix": sys.prefix, "base": sys.base_prefix,',
  '  "version": "%d.%d.%d" % sys.version_info[:3],',
  '  "lib": sysconfig.get_config_var("LIBDIR") if sysconfig.get_config_var("Py_ENABLE_SHARED") else None, "ssp": ssp}))',
].join('\n')

/** How long the one host probe of an interpreter may take. */
const PROBE_TIMEOUT_MS = 10_000

const layouts = new Map<string, PythonLayout | undefined>()

function absolute(value: unknown): string | undefined {
  return typeof value === 'string' && isAbsolute(value) ? normalizeAbsolutePath(value) : undefined
}

/**
 * Asks the python at `program` (a real interpreter or a pyenv shim) where it
 * lives: one host process with `-I` and a timeout, run at setup and never on
 * a model's request, remembered per program for the life of the process
 * (and across processes when `rememberPythonProbes` is on, while the
 * interpreter is unchanged).
 * Undefined when it does not start, times out or answers nonsense.
 */
export function describePython(program: string): PythonLayout | undefined {
  if (layouts.has(program)) return layouts.get(program)
  const earlier = fromEarlierProcess(program)
  if (earlier !== undefined) return earlier
  let out: string | undefined
  try {
    // Loaded on first use, so the root entry (which reaches this module) never loads child_process.
    const { execFileSync } = process.getBuiltinModule('node:child_process')
    out = execFileSync(program, PROBE_ARGS, PROBE_OPTIONS)
  } catch {
    // Did not start, timed out or failed: no layout.
  }
  return remember(program, out)
}

/**
 * `describePython` without blocking: the same probe in a child process the
 * event loop waits for, remembered the same way, so a later
 * `describePython(program)` starts nothing. For setup that can overlap the
 * probe with other work (a command's discovery, serve's `initialize`).
 */
export async function describePythonAsync(program: string): Promise<PythonLayout | undefined> {
  if (layouts.has(program)) return layouts.get(program)
  const earlier = fromEarlierProcess(program)
  if (earlier !== undefined) return earlier
  const { execFile } = process.getBuiltinModule('node:child_process')
  const out = await new Promise<string | undefined>((resolve) => {
    execFile(program, PROBE_ARGS, PROBE_LIMITS, (err, stdout) => resolve(err ? undefined : stdout))
  })
  // A synchronous probe may have answered meanwhile: the first answer stays.
  if (layouts.has(program)) return layouts.get(program)
  return remember(program, out)
}

const PROBE_ARGS = ['-I', '-c', PROBE]
const PROBE_LIMITS = { timeout: PROBE_TIMEOUT_MS, maxBuffer: 64 * 1024, encoding: 'utf8' } as const
const PROBE_OPTIONS = {
  ...PROBE_LIMITS,
  stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'],
}

/**
 * Records what the probe of `program` printed (`undefined`: it gave no
 * answer), in memory and, for an answer, across processes
 * (`rememberPythonProbes`).
 */
function remember(program: string, out: string | undefined): PythonLayout | undefined {
  const found = out === undefined ? undefined : layoutOf(out)
  layouts.set(program, found)
  if (found !== undefined) {
    layouts.set(found.executable, found)
    rememberProbe(program, out as string, found.executable)
  }
  return found
}

/** The layout an earlier process learnt of `program`, unchanged since (`rememberedProbe`). */
function fromEarlierProcess(program: string): PythonLayout | undefined {
  const out = rememberedProbe(program)
  const found = out === undefined ? undefined : layoutOf(out)
  if (found === undefined) return undefined
  layouts.set(program, found)
  layouts.set(found.executable, found)
  return found
}

/**
 * What `describePython` already learnt about `program`, with no process
 * started: for answers given on a model's request (a load result), which
 * must never spawn. Undefined when it was never asked or could not say.
 */
export function knownPython(program: string): PythonLayout | undefined {
  return layouts.get(program)
}

/** The layout the probe printed, or undefined for nonsense. */
function layoutOf(out: string): PythonLayout | undefined {
  try {
    const raw = JSON.parse(out.trim().split('\n').pop() ?? '') as Record<string, unknown>
    const executable = absolute(raw.executable)
    const prefix = absolute(raw.prefix)
    const basePrefix = absolute(raw.base)
    const version = typeof raw.version === 'string' ? raw.version : ''
    if (!(executable && prefix && basePrefix && /^\d+\.\d+\.\d+$/.test(version))) return undefined
    const libDir = absolute(raw.lib)
    return {
      executable,
      realExecutable: realpathSync(executable),
      prefix,
      basePrefix,
      version,
      ...(libDir === undefined ? {} : { libDir }),
      systemSitePackages: raw.ssp === true,
    }
  } catch {
    return undefined
  }
}

function executableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The first `name` on `path` (a `PATH` value); relative entries are skipped, as a login shell's would be unsafe. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(':')) {
    if (dir === '' || !isAbsolute(dir)) continue
    const candidate = join(dir, name)
    if (executableFile(candidate)) return candidate
  }
  return undefined
}

/**
 * The python `PATH` offers (`python3`, then `python`) and whether it must be
 * asked where it lives: not when it is in `systemDirs`, symlinks and all.
 */
function userPythonOnPath(
  path: string | undefined,
  systemDirs: readonly string[],
): { readonly program: string; readonly probe: boolean } | undefined {
  const found = findOnPath('python3', path) ?? findOnPath('python', path)
  if (found === undefined) return undefined
  const real = realpathSync(found)
  const system = systemDirs.some((d) => isPathInside(found, d) && isPathInside(real, d))
  return { program: found, probe: !system }
}

/**
 * The python a user of this host gets from `PATH` (`python3`, then
 * `python`): the program its own `sys.executable` names, so a pyenv shim
 * becomes the real interpreter and a venv stays a venv. A python already in
 * `systemDirs` is taken as it is, without a probe. Undefined when `PATH`
 * has none or it does not answer; callers fall back to `/usr/bin/python3`.
 */
export function resolveUserPython(
  path: string | undefined,
  systemDirs: readonly string[],
): string | undefined {
  const user = userPythonOnPath(path, systemDirs)
  if (user === undefined || !user.probe) return user?.program
  return describePython(user.program)?.executable
}

/**
 * Runs `resolveUserPython`'s probe, if it needs one, without blocking (see
 * `describePythonAsync`): afterwards `resolveUserPython` with the same
 * arguments answers from memory.
 */
export async function prepareUserPython(
  path: string | undefined,
  systemDirs: readonly string[],
): Promise<void> {
  const user = userPythonOnPath(path, systemDirs)
  if (user?.probe) await describePythonAsync(user.program)
}
