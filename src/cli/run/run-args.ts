import { escapeLine } from '../../common/index.js'
import type { SkillScriptDeclaration } from '../../sources/index.js'
import { UsageError } from '../shared/parse-args.js'
import { SANDBOX_LIST_FLAGS } from '../shared/sandbox-flags.js'

// How `skillhost run` reads its argv: its own flags, the skill folder and
// script name, and the script's parameters typed by its declaration.

const RUN_FLAGS = new Set(['timeout', 'json', 'help', 'provision'])
// run's own flags that take a value; never passed to the script.
const RUN_VALUE_FLAGS = new Set<string>([
  'timeout',
  'workspace',
  'overlays',
  'locked',
  ...SANDBOX_LIST_FLAGS,
])

/**
 * Splits argv into run options and script arguments typed by the script's
 * declared params. After `--`, every value is a positional, taken literally
 * (`-- --help` fills a positional with `--help`).
 */
export function scriptArgs(
  script: SkillScriptDeclaration,
  argv: readonly string[],
): Record<string, unknown> {
  const params = new Map((script.params ?? []).map((p) => [p.name, p]))
  const positional = (script.params ?? []).filter((p) => p.positional)
  const args: Record<string, unknown> = Object.create(null)
  let nextPositional = 0
  let literal = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--' && !literal) {
      literal = true
      continue
    }
    if (literal || !arg.startsWith('--')) {
      const param = positional[nextPositional++]
      if (!param)
        throw new UsageError(
          `script '${script.name}' takes no more positional values (got '${arg}')`,
        )
      args[param.name] = coerce(param.type, arg, param.name)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (RUN_FLAGS.has(name) || RUN_VALUE_FLAGS.has(name)) {
      if (RUN_VALUE_FLAGS.has(name)) i += eq === -1 ? 1 : 0
      continue
    }
    const param = params.get(name)
    if (!param) {
      const known = [...params.keys()].map((n) => `--${n}`).join(', ') || 'none'
      throw new UsageError(
        `script '${script.name}' has no parameter --${name} (parameters: ${known})`,
      )
    }
    if (param.type === 'boolean' && eq === -1) {
      args[name] = true
      continue
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new UsageError(`--${name} needs a value`)
    args[name] = coerce(param.type, value, name)
  }
  return args
}

/**
 * The argv of an undeclared script (any file of the skill), from what
 * follows its name, as a user types it after `python scripts/pack.py`:
 * words and flags that are not run's are its arguments, in order
 * (`unpacked/ out.docx --original in.docx`); run's own flags (and their
 * values) are not; after `--` everything is, literally (`-- --timeout 5`
 * gives the script run's flag names too).
 */
export function undeclaredArgv(rest: readonly string[]): string[] {
  const argv: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === '--') return [...argv, ...rest.slice(i + 1)]
    if (!arg.startsWith('--')) {
      argv.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (!RUN_FLAGS.has(name) && !RUN_VALUE_FLAGS.has(name)) {
      argv.push(arg)
      continue
    }
    if (RUN_VALUE_FLAGS.has(name) && eq === -1) i += 1
  }
  return argv
}

function coerce(type: string, value: string, name: string): unknown {
  if (type === 'number' || type === 'integer') {
    const n = Number(value)
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`)
    return n
  }
  if (type === 'boolean') return value === 'true'
  return value
}

/** Every value of `--name` in argv (`--name value` or `--name=value`), in order. */
export function optionValues(argv: readonly string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === `--${name}`) {
      const value = argv[++i]
      if (value === undefined) throw new UsageError(`--${name} needs a value`)
      values.push(value)
    } else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3))
  }
  return values
}

/**
 * `<skill-dir>` and `<script>`, the first two arguments that are not run's
 * own flags: run's flags may stand before, between or after them. The flags
 * met before them are kept, in order, ahead of the rest; a script's own
 * parameters go after its name.
 */
export function runTarget(argv: readonly string[]): {
  skillDir: string
  scriptName: string
  rest: string[]
} {
  const own: string[] = []
  const target: string[] = []
  let i = 0
  for (; i < argv.length && target.length < 2; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      target.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (!RUN_FLAGS.has(name) && !RUN_VALUE_FLAGS.has(name))
      throw new UsageError(
        `unknown option ${escapeLine(arg.slice(0, eq === -1 ? undefined : eq))} before the skill folder and script name; a script's own flags go after them`,
      )
    own.push(arg)
    if (RUN_VALUE_FLAGS.has(name) && eq === -1) {
      const value = argv[++i]
      if (value === undefined) throw new UsageError(`--${name} needs a value`)
      own.push(value)
    }
  }
  const [skillDir, scriptName] = target
  if (skillDir === undefined || scriptName === undefined)
    throw new UsageError('give a skill folder and a script name')
  return { skillDir, scriptName, rest: [...own, ...argv.slice(i)] }
}
