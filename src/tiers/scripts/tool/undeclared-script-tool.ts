import { MAX_ARG_VALUE_LENGTH, MAX_LITERAL_ARGS } from '../../../skill-model/arg-value.js'
import { scriptToolName } from '../../../skill-model/script-tool-name.js'
import { MAX_SKILL_PATH_LENGTH } from '../../../skill-model/skill-path.js'
import { TIMEOUT_PARAM, timeoutProperty } from '../../../skill-model/timeout-param.js'
import { type UnavailableTool, unavailableTool } from '../../../skill-model/unavailable-tool.js'
import type { SkillDescriptor } from '../../../sources/types.js'
import type { SkillFileHeads } from '../../tier-forge.js'
import { interpreterFor } from '../policy/undeclared-interpreter.js'
import type { JsonSchemaObject } from './script-input-schema.js'

/** The tool that runs a loaded skill's undeclared scripts: `run_<skill>_script`. */
export function undeclaredToolName(skill: string): string {
  return scriptToolName(skill, 'script')
}

/**
 * Whether a skill with these files gets `run_<skill>_script` when undeclared
 * scripts are allowed: when any file is one `interpreterFor` takes for a
 * script (runnable or denied), as the forge decides after its scan. A file
 * its extension names is judged without reading; the others' heads are read
 * (`readHead`), in order, only until one has a shebang.
 */
export async function shipsUndeclaredScripts(
  paths: readonly string[],
  readHead: (path: string) => Promise<string>,
  interpreters: Readonly<Record<string, readonly string[]>>,
): Promise<boolean> {
  if (paths.some((p) => interpreterFor(p, '', interpreters) !== undefined)) return true
  for (const path of paths)
    if (interpreterFor(path, await readHead(path), interpreters) !== undefined) return true
  return false
}

/**
 * The allowed interpreters a skill's undeclared scripts would run with, by
 * name, sorted: `interpreterFor` over each file, judged by its extension,
 * and by its head (`readHead`) only for a file with no extension (where a
 * shebang script lives), so a preview over many data files reads none.
 */
export async function undeclaredInterpreterNames(
  paths: readonly string[],
  readHead: (path: string) => Promise<string>,
  interpreters: Readonly<Record<string, readonly string[]>>,
): Promise<string[]> {
  const names = new Set<string>()
  for (const path of paths) {
    const base = path.slice(path.lastIndexOf('/') + 1)
    const head = base.includes('.') ? '' : await readHead(path)
    const choice = interpreterFor(path, head, interpreters)
    if (choice?.kind === 'runnable') names.add(choice.interpreter)
  }
  return [...names].sort()
}

/** The input schema of `run_<skill>_script`: `{ script, args?, timeout_seconds? }`. */
export function undeclaredInputSchema(maxTimeoutSeconds: number): JsonSchemaObject {
  return {
    type: 'object',
    properties: {
      script: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_SKILL_PATH_LENGTH,
        description: "The script's path inside the skill, e.g. scripts/extract.py.",
      },
      args: {
        type: 'array',
        maxItems: MAX_LITERAL_ARGS,
        items: { type: 'string', maxLength: MAX_ARG_VALUE_LENGTH },
        description:
          'Command-line arguments, one literal string each (no shell: quotes, globs and $ are passed as written). Paths are relative to /work.',
      },
      [TIMEOUT_PARAM]: timeoutProperty(maxTimeoutSeconds),
    },
    required: ['script'],
    additionalProperties: false,
  }
}

/**
 * The one rule for a skill whose scripts are not offered because undeclared
 * scripts are denied: when the skill ships a file `run_<skill>_script` would
 * run (`shipsUndeclaredScripts`) that it does not declare, that tool is
 * unavailable as `undeclared-off`, whose enable text names
 * `scripts.undeclared: 'allow'` and the CLI flag. Declared scripts are left
 * out: they have their own tools, or their own entries. A load (the forge's
 * `withheld`) and `skillhost list` (`previewScriptTools`) both call it.
 */
export async function withheldUndeclaredTool(
  descriptor: Pick<SkillDescriptor, 'id' | 'scripts'>,
  files: SkillFileHeads,
  interpreters: Readonly<Record<string, readonly string[]>>,
): Promise<UnavailableTool[]> {
  const declared = new Set((descriptor.scripts ?? []).map((s) => s.path.replace(/^(\.\/)+/, '')))
  const paths = files.paths.filter((p) => !declared.has(p))
  const ships = await shipsUndeclaredScripts(paths, files.readHead, interpreters)
  return ships ? [unavailableTool(undeclaredToolName(descriptor.id), 'undeclared-off')] : []
}
