import type { DisposableStore } from '../../../common/disposable.js'
import { trackResource } from '../../../common/leak-tracker.js'
import { SYSTEM_READ_PATHS } from '../policy/script-interpreters.js'
import { describePython } from '../policy/user-python.js'
import type { PathMount } from '../sandbox/types.js'
import type { InterpreterSandboxView, SkillScriptConfig } from '../types.js'
import { depsMissing, missingPackages } from './missing-packages.js'
import { type ProvisionedEnv, type ProvisionOptions, provisionEnv } from './provision-env.js'
import { INTERPRETER_MOUNT_ROOT, MountPlan, pythonView, writeVenvShim } from './python-view.js'
import type { Requirement } from './requirement.js'
import { scriptRequirementsOf } from './script-requirements.js'

/** A call's own interpreter: a provisioned environment seen at `/opt/skillhost/env`. */
export interface CallInterpreter {
  readonly view: InterpreterSandboxView
  readonly mounts: readonly PathMount[]
}

const PYTHON = /^python[0-9.]*$/

/** Where a provisioned environment's python is, as scripts see it. */
export const PROVISIONED_PYTHON = `${INTERPRETER_MOUNT_ROOT}/env/bin/python3`

/** True when `script` runs with a python of `config` (by its name or its program's): its requirements apply. */
export function runsWithPython(
  config: SkillScriptConfig,
  script: { readonly interpreter: string },
): boolean {
  const program = config.interpreters[script.interpreter]?.[0]
  return (
    program !== undefined && (PYTHON.test(script.interpreter) || /python[0-9.]*$/.test(program))
  )
}

/**
 * What a python script's requirements (`scriptRequirementsOf`) mean
 * for one call. None, or all installed: nothing (the configured
 * interpreter runs). Declared, missing and `config.provision` unset:
 * `E_SKILL_SCRIPT_DEPS_MISSING` naming them, before anything runs (inferred
 * ones are not checked then: the script runs with the configured python).
 * Provisioning on: the environment for the set (`provisionEnv`, built once
 * on the host with the deployer's index) bound read-only at
 * `/opt/skillhost/env` over the same base interpreter.
 */
export async function callInterpreter(
  config: SkillScriptConfig,
  skill: string,
  script: { readonly name: string; readonly path: string; readonly interpreter: string },
  root: string,
): Promise<CallInterpreter | undefined> {
  const program = config.interpreters[script.interpreter]?.[0]
  if (program === undefined || !runsWithPython(config, script)) return undefined
  const { requirements, inferred } = await scriptRequirementsOf(root, script.path)
  if (requirements.length === 0) return undefined
  const provision = config.provision
  if (provision === undefined) {
    // Inferred from imports: the script runs as it always did, its own ImportError shown.
    if (inferred) return undefined
    const missing = await missingPackages(program, requirements)
    if (missing.length > 0) throw depsMissing(skill, script.name, missing)
    return undefined
  }
  return (await provisionedInterpreter(program, requirements, provision, config.interpreterMounts))
    ?.call
}

/**
 * The environment for `requirements` over the python at `program`
 * (`provisionEnv`), and how a call sees it: the env at `/opt/skillhost/env`
 * over the base installation at the path `mounts` already gives it (else
 * `/opt/skillhost/python/<version>`). `skillhost env` and script calls both
 * come here, so an env built ahead is the one a call finds. Undefined when
 * the python cannot say where it lives.
 */
export async function provisionedInterpreter(
  program: string,
  requirements: readonly Requirement[],
  provision: ProvisionOptions,
  mounts: readonly PathMount[] = [],
  signal?: AbortSignal,
): Promise<{ call: CallInterpreter; env: ProvisionedEnv } | undefined> {
  const layout = describePython(program)
  if (layout === undefined) return undefined
  const base = { ...layout, prefix: layout.basePrefix, systemSitePackages: false }
  const plan = new MountPlan()
  for (const m of mounts) plan.place(m.host, m.sandbox)
  const baseView = await pythonView(base, SYSTEM_READ_PATHS, '/nonexistent', plan)
  const baseBinary = baseView?.argv[0]
  if (baseView === undefined || baseBinary === undefined) return undefined
  const shim = (dir: string) => writeVenvShim(dir, baseBinary, base)
  const env = await provisionEnv(base, requirements, provision, shim, signal)
  const at = `${INTERPRETER_MOUNT_ROOT}/env`
  const call = {
    view: { argv: [PROVISIONED_PYTHON], env: baseView.env, version: layout.version },
    mounts: [
      ...baseView.mounts,
      { host: env.shim, sandbox: at },
      { host: env.venv, sandbox: `${at}/site` },
    ],
  }
  return { call, env }
}

/**
 * Starts building, without waiting, the environment a call of `script`
 * would need (`config.provision` on, a python script, `requirements` not
 * empty), so a build starts when a skill is loaded rather than at its first
 * call. It is the build a call would start (`provisionedInterpreter`, same
 * key, same cache): a call arriving mid-build waits on its lock instead of
 * starting another, and `provision.onBuild` hears it as any build. `store`
 * (the loaded skill version's) owns the build: disposing it (unload, the
 * manager disposed) aborts it, kills its venv or pip, and waits until it
 * has ended, so nothing outlives its owner and a half build is never kept.
 * A failure is left to the call, which meets it again and reports it.
 */
export function warmScriptEnv(
  config: SkillScriptConfig,
  script: { readonly interpreter: string; readonly path: string },
  requirements: readonly Requirement[],
  store: DisposableStore,
): void {
  const program = config.interpreters[script.interpreter]?.[0]
  const provision = config.provision
  if (program === undefined || provision === undefined || requirements.length === 0) return
  if (!runsWithPython(config, script) || store.isDisposed) return
  const stop = new AbortController()
  const untrack = trackResource('process', `environment build for ${script.path}`)
  const mounts = config.interpreterMounts
  const build = provisionedInterpreter(program, requirements, provision, mounts, stop.signal)
    .catch(() => undefined)
    .finally(() => untrack())
  store.add(() => {
    stop.abort()
    // Under way until the killed build has ended: a leak check waits for it.
    untrack(build)
    return build.then(() => undefined)
  })
}
