import { join } from 'node:path'
import { scriptsOffTools, scriptToolName } from '../../../skill-model/script-tool-name.js'
import type { UnavailableTool } from '../../../skill-model/unavailable-tool.js'
import type { SkillDescriptor } from '../../../sources/types.js'
import { readScriptHead } from '../policy/undeclared-interpreter.js'
import { partitionScripts } from './script-availability.js'
import {
  shipsUndeclaredScripts,
  undeclaredInterpreterNames,
  undeclaredToolName,
  withheldUndeclaredTool,
} from './undeclared-script-tool.js'

/** The tier-3 configuration a preview answers for. */
export interface ScriptToolsPreviewOptions {
  /** Whether scripts run at all (a `scripts` config given); when not, every declared script is unavailable. */
  readonly enabled: boolean
  /** The deployer's allow-list, name → argv (`scriptInterpreters`). */
  readonly interpreters: Readonly<Record<string, readonly string[]>>
  /**
   * With undeclared scripts allowed (`undeclared: 'allow'`): the skill's
   * folder and its files, whose heads are read to find a shebang. Omitted,
   * no `run_<skill>_script` is offered.
   */
  readonly undeclared?: { readonly dir: string; readonly files: readonly string[] }
  /**
   * With undeclared scripts denied (`undeclared: 'deny'`): the skill's folder
   * and files, so a skill that ships scripts says why it gets no
   * `run_<skill>_script` (`withheldUndeclaredTool`).
   */
  readonly denied?: { readonly dir: string; readonly files: readonly string[] }
}

/** The script tools a load would offer for one skill, and the declared ones it would not. */
export interface ScriptToolsPreview {
  /** `run_<skill>_<script>` for each declared script that passes the load's rules. */
  readonly declared: readonly string[]
  /** `run_<skill>_script`, when undeclared scripts are allowed and the skill ships a file one runs. */
  readonly undeclared: readonly string[]
  /** Declared scripts that would not be offered, with the reason and what enables them. */
  readonly unavailable: readonly UnavailableTool[]
  /** Each offered declared tool → the interpreter name it runs with (a key of the allow-list). */
  readonly runsWith: Readonly<Record<string, string>>
  /** The interpreters `run_<skill>_script` would run the skill's files with, by name (`undeclaredInterpreterNames`). */
  readonly undeclaredRunsWith: readonly string[]
}

/**
 * What tier 3 would offer for a skill, by the rules its forge applies at a
 * load, without materializing or running anything: `partitionScripts` (or
 * `scriptsOffTools` when scripts are off) for the declared scripts, tool
 * names by `scriptToolName`, and the forge's rule for `run_<skill>_script`
 * (`shipsUndeclaredScripts`, reading only file heads under `dir`).
 */
export async function previewScriptTools(
  descriptor: SkillDescriptor,
  options: ScriptToolsPreviewOptions,
): Promise<ScriptToolsPreview> {
  const { valid, unavailable } = options.enabled
    ? partitionScripts(descriptor, options.interpreters)
    : { valid: [], unavailable: scriptsOffTools(descriptor) }
  const offer = options.enabled ? options.undeclared : undefined
  const ships =
    offer !== undefined &&
    (await shipsUndeclaredScripts(
      offer.files,
      (p) => readScriptHead(join(offer.dir, p)),
      options.interpreters,
    ))
  const undeclaredRunsWith = ships
    ? await undeclaredInterpreterNames(
        offer.files,
        (p) => readScriptHead(join(offer.dir, p)),
        options.interpreters,
      )
    : []
  const held = options.enabled ? options.denied : undefined
  const withheld =
    held === undefined
      ? []
      : await withheldUndeclaredTool(
          descriptor,
          { paths: held.files, readHead: (p) => readScriptHead(join(held.dir, p)) },
          options.interpreters,
        )
  const runsWith: Record<string, string> = Object.create(null)
  for (const s of valid) runsWith[scriptToolName(descriptor.id, s.name)] = s.interpreter
  return {
    runsWith,
    undeclaredRunsWith,
    declared: valid.map((s) => scriptToolName(descriptor.id, s.name)),
    undeclared: ships ? [undeclaredToolName(descriptor.id)] : [],
    unavailable: [...unavailable, ...withheld],
  }
}
