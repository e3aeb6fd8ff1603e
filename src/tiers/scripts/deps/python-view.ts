import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { isPathInside } from '../policy/policy.js'
import type { PythonLayout } from '../policy/user-python.js'
import type { PathMount } from '../sandbox/types.js'

/** Where interpreters from outside the system directories appear in a sandbox. */
export const INTERPRETER_MOUNT_ROOT = '/opt/skillhost'

/**
 * How a sandbox sees one interpreter: the argv prefix at sandbox paths, the
 * environment it needs there, and the host directories bound read-only for
 * it (host → sandbox).
 */
export interface InterpreterView {
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
  readonly mounts: readonly PathMount[]
  /** The interpreter's version, as it reported it. */
  readonly version?: string
}

/** Sandbox paths already handed out in one setup, so two interpreters never share one by accident. */
export class MountPlan {
  readonly #byHost = new Map<string, string>()
  readonly #taken = new Set<string>()

  /** The sandbox path of `host`: the one it already has, else `preferred` (or `preferred-2`, …). */
  place(host: string, preferred: string): string {
    const known = this.#byHost.get(host)
    if (known !== undefined) return known
    let sandbox = preferred
    for (let n = 2; this.#taken.has(sandbox); n++) sandbox = `${preferred}-${n}`
    this.#byHost.set(host, sandbox)
    this.#taken.add(sandbox)
    return sandbox
  }
}

/**
 * The files that make a venv whole at a neutral path: `pyvenv.cfg` naming the
 * base interpreter's sandbox `bin`, `bin/python3` and `bin/python` linking to
 * its binary, `lib` → `site/lib` and an empty `site`, where the venv itself
 * is bound. Python finds a venv by the `pyvenv.cfg` beside or above the
 * program it was started as, so the host venv (whose links and `home` name
 * host paths) is never run as it is.
 */
export async function writeVenvShim(
  dir: string,
  baseBinary: string,
  layout: PythonLayout,
): Promise<void> {
  await rm(dir, { recursive: true, force: true })
  await mkdir(join(dir, 'bin'), { recursive: true, mode: 0o755 })
  await mkdir(join(dir, 'site'), { mode: 0o755 })
  const home = baseBinary.slice(0, baseBinary.lastIndexOf('/'))
  await writeFile(
    join(dir, 'pyvenv.cfg'),
    `home = ${home}\ninclude-system-site-packages = ${String(layout.systemSitePackages)}\nversion = ${layout.version}\n`,
    { mode: 0o644 },
  )
  for (const name of ['python3', 'python']) await symlink(baseBinary, join(dir, 'bin', name))
  await symlink('site/lib', join(dir, 'lib'))
}

/**
 * The sandbox view of the python `layout` describes. Its installation
 * (`basePrefix`) is bound at `/opt/skillhost/python/<version>` unless it lies
 * in `systemDirs` (then it is used where it is), with `LD_LIBRARY_PATH` at its
 * shared libpython (a pyenv build links it by an absolute host path); a venv
 * is bound at `/opt/skillhost/venv` under a shim written to `shimDir`
 * (`writeVenvShim`). Undefined when the binary lies outside its installation,
 * which no neutral path can express.
 */
export async function pythonView(
  layout: PythonLayout,
  systemDirs: readonly string[],
  shimDir: string,
  plan: MountPlan,
  venvPreferred = `${INTERPRETER_MOUNT_ROOT}/venv`,
): Promise<InterpreterView | undefined> {
  const inSystem = (p: string) => systemDirs.some((d) => isPathInside(p, d))
  const mounts: PathMount[] = []
  const env: Record<string, string> = {}
  let baseBinary = layout.realExecutable
  if (!inSystem(layout.basePrefix)) {
    if (!isPathInside(layout.realExecutable, layout.basePrefix)) return undefined
    const base = plan.place(layout.basePrefix, `${INTERPRETER_MOUNT_ROOT}/python/${layout.version}`)
    mounts.push({ host: layout.basePrefix, sandbox: base })
    baseBinary = join(base, relative(layout.basePrefix, layout.realExecutable))
    if (layout.libDir !== undefined && isPathInside(layout.libDir, layout.basePrefix)) {
      env.LD_LIBRARY_PATH = join(base, relative(layout.basePrefix, layout.libDir))
    }
  } else if (!inSystem(layout.realExecutable)) return undefined
  if (layout.prefix === layout.basePrefix) {
    return { argv: [baseBinary], env, mounts, version: layout.version }
  }
  const at = plan.place(shimDir, venvPreferred)
  await writeVenvShim(shimDir, baseBinary, layout)
  mounts.push({ host: shimDir, sandbox: at }, { host: layout.prefix, sandbox: `${at}/site` })
  return { argv: [`${at}/bin/python3`], env, mounts, version: layout.version }
}
