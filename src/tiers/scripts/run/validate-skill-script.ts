import { SkillHostError } from '../../../common/errors.js'
import { scriptDeclarationProblems, shownValue } from '../../../skill-model/script-declaration.js'
import { normalizeSkillPath } from '../../../skill-model/skill-path.js'
import { TIMEOUT_PARAM } from '../../../skill-model/timeout-param.js'
import type { SkillScript, SkillScriptParam } from '../types.js'

/** The reserved tool-input property carrying the per-call deadline (the skill model's rule). */
export { TIMEOUT_PARAM }

function invalid(skill: string, script: string, why: string): never {
  throw new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    `Skill '${skill}' script '${script}': ${why}`,
    {
      data: { skill, script },
    },
  )
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
 * an enum value that would inject an option. Only the allow-list refusal
 * carries `data.allowed` (how `partitionScripts` tells it apart). Returns the
 * declaration with its path normalized and its interpreter prefix resolved.
 */
export function validateSkillScript(
  skill: string,
  script: SkillScript,
  interpreters: Readonly<Record<string, readonly string[]>>,
): ValidatedSkillScript {
  if (typeof script !== 'object' || script === null)
    invalid(skill, shownValue(script), 'a script declaration must be an object.')
  const scriptName = typeof script.name === 'string' ? script.name : shownValue(script.name)
  // The path keeps its own code; everything else is the skill model's one validator.
  const path = normalizeSkillPath(script.path)
  const problem = scriptDeclarationProblems(script)[0]
  if (problem !== undefined) invalid(skill, scriptName, `${problem.at} ${problem.message}.`)
  const allowed = Object.keys(interpreters).sort()
  const prefix = Object.hasOwn(interpreters, script.interpreter)
    ? interpreters[script.interpreter]
    : undefined
  if (prefix === undefined) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `Skill '${skill}' declares interpreter '${script.interpreter}' for script '${scriptName}'; allowed: ${allowed.join(', ') || '(none configured)'}.`,
      { data: { skill, script: scriptName, interpreter: script.interpreter, allowed } },
    )
  }
  const params = script.params ?? []
  return { ...script, path, interpreterArgv: [...prefix], params: [...params] }
}
