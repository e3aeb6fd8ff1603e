import { SkillHostError } from '../../../common/errors.js'
import { unsafeArgValueReason } from '../../../skill-model/arg-value.js'
import type { SkillScriptParam } from '../types.js'

function bad(name: string, why: string): never {
  // `problem` lets a host say it in its own terms (the CLI: `--name is required.`).
  throw new SkillHostError('E_SKILL_SCRIPT_INVALID_ARGS', `Parameter '${name}' ${why}`, {
    data: { param: name, problem: why },
  })
}

/**
 * Throws `E_SKILL_SCRIPT_INVALID_ARGS` unless `value` is safe as one argv
 * element: no leading `-` (it would be read as an option), no NUL (it would
 * cut the argument), at most 32 KiB.
 */
export function assertSafeArgValue(name: string, value: string): void {
  const why = unsafeArgValueReason(value)
  if (why !== undefined) bad(name, why)
}

function render(param: SkillScriptParam, value: unknown): string {
  switch (param.type) {
    case 'string':
      if (typeof value !== 'string') bad(param.name, 'must be a string.')
      return value
    case 'enum':
      if (typeof value !== 'string' || !(param.values ?? []).includes(value)) {
        bad(param.name, `must be one of: ${(param.values ?? []).join(', ')}.`)
      }
      return value
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        bad(param.name, 'must be an integer.')
      return String(value)
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        bad(param.name, 'must be a finite number.')
      return String(value)
    default:
      bad(param.name, `has an unsupported type '${String(param.type)}'.`)
  }
}

/**
 * The argv of one script call, built without a shell: the interpreter
 * prefix, the sandbox path of the script, then the parameters in declaration
 * order — positional ones as bare values, flags as `--name value`, booleans as
 * `--name` only when true. Throws `E_SKILL_SCRIPT_INVALID_ARGS` for an
 * undeclared or missing argument, a wrong type, or an unsafe value (leading
 * `-`, which also rules out negative numbers, or NUL).
 */
export function buildArgv(
  interpreterArgv: readonly string[],
  scriptPath: string,
  params: readonly SkillScriptParam[],
  args: Readonly<Record<string, unknown>>,
): string[] {
  const declared = new Set(params.map((p) => p.name))
  for (const key of Object.keys(args)) {
    if (!declared.has(key)) bad(key, 'is not declared by the script.')
  }
  const argv = [...interpreterArgv, scriptPath]
  for (const param of params) {
    const value = Object.hasOwn(args, param.name) ? args[param.name] : undefined
    if (value === undefined || value === null) {
      if (param.required === true) bad(param.name, 'is required.')
      continue
    }
    if (param.type === 'boolean') {
      if (typeof value !== 'boolean') bad(param.name, 'must be a boolean.')
      if (value) argv.push(`--${param.name}`)
      continue
    }
    const text = render(param, value)
    assertSafeArgValue(param.name, text)
    if (param.positional === true) argv.push(text)
    else argv.push(`--${param.name}`, text)
  }
  return argv
}
