import { join } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'
import { literalArgProblem, MAX_LITERAL_ARGS } from '../../../skill-model/arg-value.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import { TIMEOUT_PARAM } from '../../../skill-model/timeout-param.js'
import { interpreterFor, readScriptHead } from '../policy/undeclared-interpreter.js'
import type { ValidatedSkillScript } from './validate-skill-script.js'

// A call of a skill file its skill does not declare (`run_<skill>_script`,
// `skillhost run <skill> <file>`): which files may run, and one call checked.

/** A loaded skill's files that may run undeclared, and those whose interpreter is not allowed. */
export interface UndeclaredScripts {
  readonly runnable: ReadonlyMap<string, ValidatedSkillScript>
  /** Path → the interpreter it wants. */
  readonly denied: ReadonlyMap<string, string>
}

/**
 * Which of a materialized skill's files run undeclared, by shebang or
 * extension (`interpreterFor`) against the deployer's `interpreters`. The one
 * scan behind `run_<skill>_script` and `skillhost run <skill> <file>`.
 */
export async function undeclaredScripts(
  root: string,
  paths: readonly string[],
  interpreters: Readonly<Record<string, readonly string[]>>,
): Promise<UndeclaredScripts> {
  const runnable = new Map<string, ValidatedSkillScript>()
  const denied = new Map<string, string>()
  for (const path of paths) {
    const choice = interpreterFor(path, await readScriptHead(join(root, path)), interpreters)
    if (choice?.kind === 'runnable') {
      runnable.set(path, {
        // A declaration name, for messages; the path is what runs.
        name: 'script',
        path,
        description: 'an undeclared script of the skill',
        interpreter: choice.interpreter,
        interpreterArgv: choice.argv,
        params: [],
      })
    } else if (choice?.kind === 'denied') denied.set(path, choice.wanted)
  }
  return { runnable, denied }
}

/** Most bytes all literal args of one call may carry together. */
export const MAX_LITERAL_ARGS_TOTAL = 256 * 1024

function invalid(message: string, data: Record<string, unknown> = {}, person?: string): never {
  throw new SkillHostError('E_SKILL_SCRIPT_INVALID_ARGS', message, {
    data,
    ...(person === undefined ? {} : { person }),
  })
}

/**
 * Instructions often name a script without its extension
 * (`python scripts/check_fields <file>`): such a path means the one runnable
 * file it names with an extension added, when exactly one exists.
 */
function withExtension(path: string, runnable: ReadonlyMap<string, unknown>): string {
  if (runnable.has(path)) return path
  const base = path.slice(path.lastIndexOf('/') + 1)
  if (base.includes('.')) return path
  const matches = [...runnable.keys()].filter(
    (p) => p.startsWith(`${path}.`) && !p.slice(path.length + 1).includes('/'),
  )
  return matches.length === 1 ? (matches[0] as string) : path
}

/**
 * The script path relative to the skill: a path under one of `mounts` (the
 * skill folder as the sandbox shows it: `/skill`, which bodies name through
 * `${CLAUDE_SKILL_DIR}`, and a plugin skill's place below `/plugin`, which
 * its tracebacks show) loses that prefix; anything else is left to the
 * skill model's path rule, which refuses what stays absolute.
 */
function withoutSkillMount(script: unknown, mounts: readonly string[]): unknown {
  if (typeof script !== 'string') return script
  const prefix = mounts.map((m) => `${m}/`).find((p) => script.startsWith(p))
  return prefix === undefined ? script : script.slice(prefix.length)
}

/**
 * Checks one call of `run_<skill>_script` and returns the script to run and
 * its literal argv. A path under one of `skillMounts` (`/skill/scripts/x.py`,
 * `/plugin/skills/x/scripts/x.py`) means the same path inside the skill. The path goes through the skill model's path rule
 * (`E_SKILL_SOURCE_PATH_REJECTED` for absolute, `..` and the like) and must
 * name a runnable file of the loaded skill (or, without an extension, the one
 * runnable file it names with one); every arg must pass
 * `literalArgProblem`, within `MAX_LITERAL_ARGS` and `MAX_LITERAL_ARGS_TOTAL`
 * (`E_SKILL_SCRIPT_INVALID_ARGS`). A file whose interpreter the deployer does
 * not allow is refused with the same code, naming the interpreter it wants.
 */
export function undeclaredScriptCall(
  skill: string,
  input: Readonly<Record<string, unknown>>,
  runnable: ReadonlyMap<string, ValidatedSkillScript>,
  denied: ReadonlyMap<string, string>,
  skillMounts: readonly string[],
): { script: ValidatedSkillScript; args: Record<string, unknown>; argv: string[] } {
  const asked = normalizeSkillPath(withoutSkillMount(input.script, skillMounts))
  const path = withExtension(asked, runnable)
  const script = runnable.get(path)
  if (script === undefined) {
    const wanted = denied.get(path)
    if (wanted !== undefined) {
      invalid(
        `Skill '${skill}' file '${path}' needs the interpreter '${wanted}', which this host does not allow; ask the operator to add it (--interpreter ${wanted}=PATH).`,
        { script: path, interpreter: wanted },
      )
    }
    // The model is pointed at its tools; a person is shown the files.
    const files = [...runnable.keys()].slice(0, 20).join(', ') || 'none'
    invalid(
      `Skill '${skill}' has no runnable script '${path}'; call read_skill_file or see this tool's description for the scripts it can run.`,
      { script: path },
      `Skill '${skill}' has no runnable script '${path}' (runnable files: ${files}).`,
    )
  }
  const raw = input.args ?? []
  if (!Array.isArray(raw)) invalid('args must be an array of strings.', { param: 'args' })
  if (raw.length > MAX_LITERAL_ARGS)
    invalid(`args may hold at most ${MAX_LITERAL_ARGS} elements.`, { param: 'args' })
  let total = 0
  const argv: string[] = []
  for (const [i, value] of raw.entries()) {
    if (typeof value !== 'string')
      invalid(`args[${i}] must be a string.`, { param: 'args', index: i })
    const problem = literalArgProblem(value)
    if (problem !== undefined) invalid(`args[${i}]: ${problem}`, { param: 'args', index: i })
    total += value.length
    if (total > MAX_LITERAL_ARGS_TOTAL)
      invalid(`args may carry at most ${MAX_LITERAL_ARGS_TOTAL} characters in all.`, {
        param: 'args',
      })
    argv.push(value)
  }
  const timeout = input[TIMEOUT_PARAM]
  return { script, args: timeout === undefined ? {} : { [TIMEOUT_PARAM]: timeout }, argv }
}
