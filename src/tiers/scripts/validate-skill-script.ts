import { SkillHostError } from '../../common/errors.js'
import { normalizeSkillPath } from '../../skill-model/skill-path.js'
import { assertSafeArgValue } from './build-argv.js'
import type { SkillScript, SkillScriptParam } from './types.js'

const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'enum'])
/** The reserved tool-input property carrying the per-call deadline. */
export const TIMEOUT_PARAM = 'timeout_seconds'

/** A declared value as message text; never runs its `toString` (a null-prototype object has none). */
function shown(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'object' && value !== null)
    return Array.isArray(value) ? 'a list' : 'an object'
  return String(value)
}

function invalid(skill: string, script: string, why: string): never {
  throw new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    `Skill '${skill}' script '${script}': ${why}`,
    {
      data: { skill, script },
    },
  )
}

function validateParam(
  skill: string,
  script: string,
  param: SkillScriptParam,
  seen: Set<string>,
): void {
  const name = param?.name
  if (typeof name !== 'string' || !PARAM_NAME.test(name)) {
    invalid(
      skill,
      script,
      `parameter name ${typeof name === 'string' ? JSON.stringify(name) : shown(name)} must match ${PARAM_NAME.source}.`,
    )
  }
  if (name === TIMEOUT_PARAM)
    invalid(skill, script, `parameter name '${TIMEOUT_PARAM}' is reserved.`)
  if (seen.has(name)) invalid(skill, script, `parameter '${name}' is declared twice.`)
  seen.add(name)
  if (!TYPES.has(param.type)) {
    invalid(
      skill,
      script,
      `parameter '${name}' has type '${shown(param.type)}'; use one of ${[...TYPES].join(', ')}.`,
    )
  }
  if (param.type === 'enum') {
    const values = param.values
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.some((v) => typeof v !== 'string')
    ) {
      invalid(skill, script, `enum parameter '${name}' needs a non-empty list of string values.`)
    }
    if (new Set(values).size !== values.length)
      invalid(skill, script, `enum parameter '${name}' repeats a value.`)
    for (const value of values) {
      try {
        assertSafeArgValue(name, value)
      } catch {
        invalid(
          skill,
          script,
          `enum parameter '${name}' allows the unsafe value ${JSON.stringify(value)}.`,
        )
      }
    }
  } else if (param.values !== undefined) {
    invalid(skill, script, `parameter '${name}' lists values but is not an enum.`)
  }
  if (param.positional === true) {
    if (param.required !== true) {
      invalid(
        skill,
        script,
        `positional parameter '${name}' must be required; make it a flag or set required: true.`,
      )
    }
    if (param.type === 'boolean')
      invalid(skill, script, `boolean parameter '${name}' cannot be positional.`)
  }
}

/** A declaration that passed load-time checks, with its resolved interpreter prefix. */
export interface ValidatedSkillScript extends SkillScript {
  readonly path: string
  readonly interpreterArgv: readonly string[]
  readonly params: readonly SkillScriptParam[]
}

/**
 * Load-time checks of one script declaration. Throws
 * `E_SKILL_SOURCE_PATH_REJECTED` for an unsafe path and
 * `E_SKILL_MANIFEST_INVALID` for an interpreter absent from the allow-list, a
 * bad or duplicate parameter, an optional or boolean positional parameter, or
 * an enum value that would inject an option. Returns the declaration with its
 * path normalized and its interpreter prefix resolved.
 */
export function validateSkillScript(
  skill: string,
  script: SkillScript,
  interpreters: Readonly<Record<string, readonly string[]>>,
): ValidatedSkillScript {
  if (typeof script !== 'object' || script === null)
    invalid(skill, shown(script), 'a script declaration must be an object.')
  const scriptName = shown(script.name)
  if (!SCRIPT_NAME.test(scriptName)) {
    invalid(skill, scriptName, `the script name must match ${SCRIPT_NAME.source}.`)
  }
  if (typeof script.description !== 'string' || script.description.trim() === '') {
    invalid(skill, scriptName, 'the script needs a description.')
  }
  const path = normalizeSkillPath(script.path)
  const allowed = Object.keys(interpreters).sort()
  const prefix =
    typeof script.interpreter === 'string' && Object.hasOwn(interpreters, script.interpreter)
      ? interpreters[script.interpreter]
      : undefined
  if (prefix === undefined) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `Skill '${skill}' declares interpreter '${shown(script.interpreter)}' for script '${scriptName}'; allowed: ${allowed.join(', ') || '(none configured)'}.`,
      { data: { skill, script: scriptName, interpreter: shown(script.interpreter), allowed } },
    )
  }
  const params = script.params ?? []
  if (!Array.isArray(params)) invalid(skill, scriptName, 'params must be a list.')
  const seen = new Set<string>()
  for (const param of params) validateParam(skill, scriptName, param, seen)
  return { ...script, path, interpreterArgv: [...prefix], params: [...params] }
}
