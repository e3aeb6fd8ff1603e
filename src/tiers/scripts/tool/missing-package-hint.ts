import { quoteName } from '../../../common/escape-text.js'
import type { ScriptRunResult, SkillScriptConfig } from '../types.js'
import type { RunsWith } from './describe-interpreter.js'

/**
 * Python's words for an import that found no module: `ModuleNotFoundError:
 * No module named 'pypdf'` (and Python 2's `ImportError: No module named
 * pypdf`), at the start of a line. The name is the script's text: bounded
 * here and quoted where it is said.
 */
const NO_MODULE =
  /^(?:ModuleNotFoundError|ImportError): No module named '?([A-Za-z0-9_.]{1,100})'?\s*$/gm

/** The module the last such line names (its top package, as pip installs it), if any. */
export function missingModule(stderr: string): string | undefined {
  let last: string | undefined
  for (const m of stderr.matchAll(NO_MODULE)) last = m[1]
  return last?.split('.')[0]
}

/**
 * What to tell a person or a model when a python script exited nonzero on a
 * missing module: which python ran (its name, version and path as scripts
 * see it, never a host path: `runsWith` is the sandbox's view) and the ways
 * to provide the package, in the library's and the CLI's words. Only a hint,
 * said beside the outcome: it never changes the exit status or the error.
 * Undefined for a run that succeeded or failed for any other reason.
 */
export function missingPackageHint(
  result: Pick<ScriptRunResult, 'exitCode' | 'stderr'>,
  runsWith: RunsWith,
  config: Pick<SkillScriptConfig, 'provision'>,
): string | undefined {
  if (result.exitCode === 0 || result.exitCode === null) return undefined
  if (!/python/.test(`${runsWith.name} ${runsWith.program ?? ''}`)) return undefined
  const module = missingModule(result.stderr)
  if (module === undefined) return undefined
  const version = runsWith.version === undefined ? '' : ` ${runsWith.version}`
  const where = runsWith.program === undefined ? '' : ` at ${runsWith.program} in the sandbox`
  const ran = `${runsWith.name}${version}${where}`
  const fix =
    config.provision === undefined
      ? `run with provisioning, which installs the packages the script declares (PEP 723 dependencies or the skill's requirements.txt; skillhost run --provision, library: scripts.provision), or give ${runsWith.name} a python that has it (skillhost run --interpreter ${runsWith.name}=PATH, library: scripts.interpreters)`
      : `provisioning installs only what the script declares: declare it (PEP 723 dependencies or the skill's requirements.txt), or give ${runsWith.name} a python that has it (skillhost run --interpreter ${runsWith.name}=PATH, library: scripts.interpreters)`
  return `python module ${quoteName(module)} is not installed in the python that ran (${ran}). To provide it: ${fix}.`
}
