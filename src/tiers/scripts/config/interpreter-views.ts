import { realpathSync } from 'node:fs'
import { basename, join } from 'node:path'
import { MountPlan, pythonView } from '../deps/python-view.js'
import { isPathInside } from '../policy/policy.js'
import { assertReadPath } from '../policy/script-interpreters.js'
import { describePython } from '../policy/user-python.js'
import type { PathMount } from '../sandbox/types.js'
import type { InterpreterSandboxView } from '../types.js'

/** The sandbox views of a setup's interpreters and the host directories behind them. */
export interface InterpreterViews {
  readonly views: Record<string, InterpreterSandboxView>
  /** Host → sandbox, one per directory, for the translator and the session's read paths. */
  readonly mounts: readonly PathMount[]
}

const PYTHON = /^python[0-9.]*$/

/**
 * Gives every python of `interpreters` that lives outside `systemDirs` a
 * view at neutral sandbox paths (`pythonView`): it then runs wherever it
 * lives, a venv or a pyenv version under a 0700 home included, and the
 * model never reads its host path. Each distinct program is asked once;
 * venv shims are written under `shimBase`. Each installation and venv is
 * checked by `assertReadPath` (never `/` or a folder holding the home
 * directory). A python that cannot say where it lives is left out, to be
 * bound where it is as before. A system python has no view, but is asked
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
  for (const [name, argv] of Object.entries(interpreters)) {
    const program = argv[0]
    if (typeof program !== 'string') continue
    if (!PYTHON.test(name) && !PYTHON.test(basename(program))) continue
    if (!byProgram.has(program)) {
      const inSystem = (p: string) => systemDirs.some((d) => isPathInside(p, d))
      const system = inSystem(program) && inSystem(realpathSync(program))
      // A system python is used where it is, but asked too: a load result names its version.
      const described = describePython(program)
      const layout = system ? undefined : described
      const view =
        layout === undefined
          ? undefined
          : await pythonView(layout, systemDirs, join(shimBase, String(byProgram.size)), plan)
      for (const m of view?.mounts ?? []) {
        const shim = isPathInside(m.host, shimBase)
        mounts.set(m.host, shim ? m : { ...m, host: assertReadPath(m.host, `python ${m.host}`) })
      }
      byProgram.set(
        program,
        view && { argv: [...view.argv, ...argv.slice(1)], env: view.env, version: view.version },
      )
    }
    const view = byProgram.get(program)
    if (view !== undefined) views[name] = view
  }
  return { views, mounts: [...mounts.values()] }
}
