import { realpathSync } from 'node:fs'
import { basename, join } from 'node:path'
import { MountPlan, pythonView } from '../deps/python-view.js'
import { isPathInside } from '../policy/policy.js'
import { assertReadPath } from '../policy/script-interpreters.js'
import { describePython } from '../policy/user-python.js'
import type { PathMount } from '../sandbox/types.js'
import type { InterpreterSandboxView } from '../types.js'
import { programView } from './program-view.js'

/** The sandbox views of a setup's interpreters and the host directories behind them. */
export interface InterpreterViews {
  readonly views: Record<string, InterpreterSandboxView>
  /** Host → sandbox, one per directory, for the translator and the session's read paths. */
  readonly mounts: readonly PathMount[]
}

const PYTHON = /^python[0-9.]*$/

/**
 * The one rule for where scripts see an interpreter: every program of
 * `interpreters` that lives outside `systemDirs` (it or its real path) gets
 * a view at neutral sandbox paths under `/opt/skillhost`, never its host
 * path and never a path inside the skill, scratch or workspace mount. A
 * python is asked where it lives (`describePython`) and seen through
 * `pythonView` (its installation at `/opt/skillhost/python/<version>`, a
 * venv at `/opt/skillhost/venv` under a shim written below `shimBase`), so
 * it runs wherever it lives, a 0700 home included; any other program, and a
 * python that cannot say where it lives, through `programView` (a node at
 * `/opt/skillhost/node/<version>`). Each distinct program is looked at once;
 * each host folder is checked by `assertReadPath` (never `/` or a folder
 * holding the home directory). A system python has no view but is asked
 * too (remembered), so `describeInterpreter` can name its version later
 * without starting a process.
 */
export async function interpreterViews(
  interpreters: Readonly<Record<string, readonly string[]>>,
  systemDirs: readonly string[],
  shimBase: string,
): Promise<InterpreterViews> {
  const views: Record<string, InterpreterSandboxView> = Object.create(null)
  const mounts = new Map<string, PathMount>()
  const byProgram = new Map<string, InterpreterSandboxView | undefined>()
  const plan = new MountPlan()
  const inSystem = (p: string) => systemDirs.some((d) => isPathInside(p, d))
  for (const [name, argv] of Object.entries(interpreters)) {
    const program = argv[0]
    if (typeof program !== 'string') continue
    const key = `${name}\0${program}`
    const python = PYTHON.test(name) || PYTHON.test(basename(program))
    // A python's view depends on the program only; another program's sandbox path on its name too.
    const known = python ? byProgram.get(program) : byProgram.get(key)
    if (known !== undefined) {
      views[name] = { ...known, argv: [...known.argv.slice(0, 1), ...argv.slice(1)] }
      continue
    }
    if (inSystem(program) && inSystem(realpathSync(program))) {
      // Used where it is; a python is asked too, so a load result names its version.
      if (python) describePython(program)
      continue
    }
    const layout = python ? describePython(program) : undefined
    const shimDir = join(shimBase, String(byProgram.size))
    const view =
      (layout && (await pythonView(layout, systemDirs, shimDir, plan))) ??
      programView(name, [program], systemDirs, plan)
    for (const m of view.mounts) {
      const shim = isPathInside(m.host, shimBase)
      mounts.set(m.host, shim ? m : { ...m, host: assertReadPath(m.host, `interpreter ${m.host}`) })
    }
    const seen: InterpreterSandboxView = {
      argv: view.argv,
      env: view.env,
      ...(view.version === undefined ? {} : { version: view.version }),
    }
    byProgram.set(python ? program : key, seen)
    views[name] = { ...seen, argv: [...seen.argv, ...argv.slice(1)] }
  }
  return { views, mounts: [...mounts.values()] }
}
