import { basename } from 'node:path'
import type { Tool } from '../../../common/tool.js'
import { isPathInside } from '../policy/policy.js'
import { SYSTEM_READ_PATHS } from '../policy/script-interpreters.js'
import { describePython, knownPython } from '../policy/user-python.js'
import type { InterpreterSandboxView } from '../types.js'

/**
 * The interpreter a script runs with: its allow-list name, its program and
 * its version when known. `skillhost list --json` shows the host's view
 * (`program` is the host path); a load result the sandbox's (`program` is
 * the path scripts see, left out when that would be a host path).
 */
export interface RunsWith {
  readonly name: string
  readonly program?: string
  readonly version?: string
  /**
   * The packages a python script declares (PEP 723, the skill's
   * `requirements.txt`, unambiguous `pip install` lines), as pip is given
   * them, or, with provisioning on and nothing declared, those its imports
   * name. With provisioning on it runs in the environment built for them
   * (`program` is then that environment's python); without, a missing
   * declared one refuses the call (`E_SKILL_SCRIPT_DEPS_MISSING`). Absent when there are none.
   */
  readonly requires?: readonly string[]
}

/** One script tool of a loaded skill and an interpreter it runs with (`LoadResult.interpreters`). */
export interface ScriptToolInterpreter extends RunsWith {
  readonly tool: string
}

const PYTHON = /^python[0-9.]*$/

/**
 * `name`'s entry of `interpreters`, described once for every reader.
 * Without `views`, as the host sees it (`skillhost list`): the program's
 * host path and, for a python, the version `describePython` reports (one
 * host process per distinct program, remembered). With `views` (the
 * sandbox's `interpreterViews`), as a script and the model see it: an
 * interpreter outside the system directories by its neutral path
 * (`/opt/skillhost/python/<version>/…`, `/opt/skillhost/venv/…`,
 * `/opt/skillhost/node/<version>/bin/node`), a system program by its path
 * (bound where it is), a program without a view (a library config that gives
 * none) without a path; the version only as already known, since this
 * answers a model's request and starts no process (`createScriptSandbox`
 * asks at setup).
 */
export function describeInterpreter(
  name: string,
  interpreters: Readonly<Record<string, readonly string[]>>,
  views?: Readonly<Record<string, InterpreterSandboxView>>,
): RunsWith {
  const program = interpreters[name]?.[0] ?? ''
  const python = PYTHON.test(name) || PYTHON.test(basename(program))
  if (views === undefined) {
    const version = python ? describePython(program)?.version : undefined
    return { name, program, ...(version === undefined ? {} : { version }) }
  }
  const view = Object.hasOwn(views, name) ? views[name] : undefined
  const shown = view?.argv[0] ?? program
  const seen = view !== undefined || SYSTEM_READ_PATHS.some((d) => isPathInside(shown, d))
  const version = view?.version ?? (python ? knownPython(program)?.version : undefined)
  return {
    name,
    ...(seen && shown !== '' ? { program: shown } : {}),
    ...(version === undefined ? {} : { version }),
  }
}

/** The key of a forged script tool's `meta` that holds what it runs with (a `RunsWith[]`). */
export const INTERPRETERS_META = 'interpreters'

/**
 * The interpreters the forged script tools among `tools` run with, one entry
 * per tool and interpreter (`run_<skill>_script` has one per interpreter its
 * runnable files use), in the sandbox's view (`describeInterpreter`). Other
 * tools have none.
 */
export function scriptToolInterpreters(tools: readonly Tool[]): ScriptToolInterpreter[] {
  return tools.flatMap((tool) => {
    const recorded = tool.meta.tier === 'script' ? tool.meta[INTERPRETERS_META] : undefined
    if (!Array.isArray(recorded)) return []
    return (recorded as readonly RunsWith[]).map((r) => ({ tool: tool.name, ...r }))
  })
}
