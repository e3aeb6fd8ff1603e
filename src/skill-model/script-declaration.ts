import { unsafeArgValueReason } from './arg-value.js'
import { normalizeSkillPath } from './skill-path.js'
import { TIMEOUT_PARAM } from './timeout-param.js'

/** A script's name: what its tool name is built from. */
export const SCRIPT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** A script parameter's name: it becomes `--name` on the command line. */
export const PARAM_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
/** The types a script parameter may declare. */
export const PARAM_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'enum']

/** One thing wrong with a declaration: where (`params[1].type`) and what, as a sentence fragment. */
export interface DeclarationProblem {
  readonly at: string
  readonly message: string
}

/** A declared value as message text; never runs its `toString` (a null-prototype object has none). */
export function shownValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'object' && value !== null)
    return Array.isArray(value) ? 'a list' : 'an object'
  return String(value)
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function paramProblems(
  raw: unknown,
  at: string,
  seen: Set<string>,
  out: DeclarationProblem[],
): void {
  const push = (field: string, message: string) =>
    out.push({ at: field === '' ? at : `${at}.${field}`, message })
  if (!isObj(raw)) {
    push('', 'must be a mapping')
    return
  }
  const name = raw.name
  if (typeof name !== 'string' || !PARAM_NAME_PATTERN.test(name)) {
    push('name', `${shownValue(name)} must match ${PARAM_NAME_PATTERN.source}`)
  } else if (name === TIMEOUT_PARAM) {
    push('name', `'${TIMEOUT_PARAM}' is reserved for the call's deadline`)
  } else if (seen.has(name)) {
    push('name', `'${name}' is declared twice`)
  } else seen.add(name)
  const type = raw.type
  if (typeof type !== 'string' || !PARAM_TYPES.includes(type)) {
    push('type', `${shownValue(type)} is not one of ${PARAM_TYPES.join(', ')}`)
  }
  const values = raw.values
  if (type === 'enum') {
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.some((v) => typeof v !== 'string')
    ) {
      push('values', 'must be a non-empty list of strings for an enum')
    } else {
      if (new Set(values).size !== values.length) push('values', 'repeats a value')
      for (const value of values as string[]) {
        if (unsafeArgValueReason(value) !== undefined)
          push('values', `allows the unsafe value ${shownValue(value)}`)
      }
    }
  } else if (values !== undefined) push('values', 'is only allowed for type enum')
  for (const flag of ['required', 'positional'] as const) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean')
      push(flag, 'must be true or false')
  }
  if (raw.positional === true) {
    if (raw.required !== true)
      push(
        'positional',
        'a positional parameter must be required; make it a flag or set required: true',
      )
    if (type === 'boolean') push('positional', 'a boolean parameter cannot be positional')
  }
  if (raw.description !== undefined && typeof raw.description !== 'string')
    push('description', 'must be a string')
}

/**
 * Every problem with one script declaration, in field order; empty when it
 * is valid. The one validator behind the sidecar parser (which reports them
 * all) and `validateSkillScript` (which throws the first), so what
 * `skillhost validate` accepts, load accepts, and the reverse. The
 * interpreter is only checked to be a name here: which names run is the
 * deployer's allow-list, checked at load.
 */
export function scriptDeclarationProblems(raw: unknown): DeclarationProblem[] {
  const out: DeclarationProblem[] = []
  if (!isObj(raw)) return [{ at: '', message: 'a script declaration must be a mapping' }]
  if (typeof raw.name !== 'string' || !SCRIPT_NAME_PATTERN.test(raw.name))
    out.push({
      at: 'name',
      message: `${shownValue(raw.name)} must match ${SCRIPT_NAME_PATTERN.source}`,
    })
  if (typeof raw.path !== 'string' || raw.path.trim() === '') {
    out.push({ at: 'path', message: 'must be a non-empty string' })
  } else {
    try {
      normalizeSkillPath(raw.path)
    } catch (err) {
      out.push({ at: 'path', message: (err as Error).message })
    }
  }
  if (typeof raw.description !== 'string' || raw.description.trim() === '')
    out.push({ at: 'description', message: 'must be a non-empty string' })
  if (typeof raw.interpreter !== 'string' || raw.interpreter.trim() === '')
    out.push({ at: 'interpreter', message: 'must be a non-empty string' })
  if (raw.params !== undefined) {
    if (!Array.isArray(raw.params)) out.push({ at: 'params', message: 'must be a list' })
    else {
      const seen = new Set<string>()
      raw.params.forEach((p, i) => {
        paramProblems(p, `params[${i}]`, seen, out)
      })
    }
  }
  return out
}
