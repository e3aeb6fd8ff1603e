import { SkillHostError } from '../../../common/errors.js'
import { declaredScriptToolName } from '../../../skill-model/script-tool-name.js'
import { type UnavailableTool, unavailableTool } from '../../../skill-model/unavailable-tool.js'
import type { SkillDescriptor } from '../../../sources/types.js'
import { type ValidatedSkillScript, validateSkillScript } from '../run/validate-skill-script.js'
import type { SkillScript } from '../types.js'

/**
 * A descriptor's declared scripts split by what this host offers: each one
 * that passes `validateSkillScript` against `interpreters`, and each one that
 * does not, as an unavailable tool under its would-be name. An interpreter
 * off the allow-list is `interpreter-not-allowed`; any other failure is
 * `declaration-invalid`, with the validation message as host-side `detail`.
 */
export function partitionScripts(
  descriptor: SkillDescriptor,
  interpreters: Readonly<Record<string, readonly string[]>>,
): { valid: ValidatedSkillScript[]; unavailable: UnavailableTool[] } {
  const valid: ValidatedSkillScript[] = []
  const unavailable: UnavailableTool[] = []
  for (const script of descriptor.scripts ?? []) {
    try {
      valid.push(validateSkillScript(descriptor.id, script as SkillScript, interpreters))
    } catch (err) {
      if (!SkillHostError.isInstance(err)) throw err
      const reason = Array.isArray(err.data.allowed)
        ? 'interpreter-not-allowed'
        : 'declaration-invalid'
      unavailable.push(
        unavailableTool(declaredScriptToolName(descriptor.id, script), reason, err.message),
      )
    }
  }
  return { valid, unavailable }
}
