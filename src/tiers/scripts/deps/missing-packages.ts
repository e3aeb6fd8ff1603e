import { SkillHostError } from '../../../common/errors.js'
import type { Requirement } from './requirement.js'
import { runFile } from './run-file.js'

const CHECK = [
  'import json, sys, importlib.metadata as m',
  'missing = []',
  'for name in sys.argv[1:]:',
  '    try:',
  '        m.distribution(name)',
  '    except m.PackageNotFoundError:',
  '        missing.append(name)',
  'print(json.dumps(missing))',
].join('\n')

const known = new Map<string, Promise<string[]>>()

/**
 * The names of `requirements` not installed for the python at `program`,
 * by `importlib.metadata` (presence only, not version): one host process
 * with `-I`, the names as argv (each a checked PEP 508 name), no skill code
 * run, remembered per program and set. Fails open to "all missing" when
 * the interpreter does not answer.
 */
export function missingPackages(
  program: string,
  requirements: readonly Requirement[],
): Promise<string[]> {
  const names = requirements.map((r) => r.name)
  const key = `${program}\0${names.join('\0')}`
  let answer = known.get(key)
  if (answer === undefined) {
    answer = runFile(program, ['-I', '-c', CHECK, ...names], {
      timeout: 10_000,
      env: {},
      maxBuffer: 256 * 1024,
    }).then(
      (out) => JSON.parse(out.stdout.trim()) as string[],
      () => names,
    )
    known.set(key, answer)
  }
  return answer
}

/**
 * `E_SKILL_SCRIPT_DEPS_MISSING` for a script of `skill` whose `missing`
 * packages are not installed: names them and the commands that would
 * provision them (the skill is named by id, never by host path).
 */
export function depsMissing(
  skill: string,
  script: string,
  missing: readonly string[],
): SkillHostError {
  return new SkillHostError(
    'E_SKILL_SCRIPT_DEPS_MISSING',
    `Script '${script}' of skill '${skill}' needs packages its python lacks: ${missing.join(', ')}. The host operator can build its environment with \`skillhost env <skill-dir>\` and run or serve with --provision.`,
    { data: { packages: [...missing] } },
  )
}
