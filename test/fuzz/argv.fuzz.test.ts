import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { buildArgv } from '../../src/tiers/scripts/run/build-argv.js'
import { validateSkillScript } from '../../src/tiers/scripts/run/validate-skill-script.js'
import type { SkillScript, SkillScriptParam } from '../../src/tiers/scripts/types.js'
import { fuzzParams, settle } from '../helpers/fuzz-config.js'

const PREFIX = ['/usr/bin/python3', '-I']
const SCRIPT = '/skill/scripts/run.py'
const INTERPRETERS = { python: PREFIX }

// Strings a model would send to break out of one argv element.
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '-',
    '--',
    '-rf',
    '--help',
    '--name=x',
    '-1',
    'a\0b',
    '\0',
    ' -x',
    '\n--x',
    '\u2212x', // minus sign, not '-'
    '',
    'x'.repeat(32 * 1024),
    'x'.repeat(32 * 1024 + 1),
  ),
  fc
    .tuple(fc.constantFrom('-', '--', '\0', ''), fc.string({ maxLength: 20 }))
    .map(([a, b]) => a + b),
)
const hugeNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    -1,
    1e21,
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    Number.MIN_SAFE_INTEGER,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
)
const modelValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hugeNumber },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
)

const paramName = fc.oneof(
  { weight: 9, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,10}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a',
      'b',
      'x-y',
      'timeout_seconds',
      '__proto__',
      'constructor',
      'toString',
    ),
  },
)
const paramType = fc.constantFrom('string', 'number', 'integer', 'boolean', 'enum')
const enumValue = fc.oneof(
  { weight: 9, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9._]{0,8}$/) },
  { weight: 1, arbitrary: hostileString },
)

// Declarations near the valid space, so most pass validation and reach buildArgv.
const param: fc.Arbitrary<SkillScriptParam> = fc
  .record({
    name: paramName,
    type: paramType,
    values: fc.uniqueArray(enumValue, { minLength: 1, maxLength: 4 }),
    required: fc.boolean(),
    positional: fc.boolean(),
  })
  .map(({ name, type, values, required, positional }) => ({
    name,
    type: type as SkillScriptParam['type'],
    ...(type === 'enum' ? { values } : {}),
    ...(positional && type !== 'boolean' ? { positional: true, required: true } : { required }),
  }))
const params = fc.uniqueArray(param, { maxLength: 6, selector: (p) => p.name })

/** A value of the declared type, safe or hostile within that type. */
function typedValue(p: SkillScriptParam): fc.Arbitrary<unknown> {
  switch (p.type) {
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.oneof(fc.nat(), hugeNumber)
    case 'number':
      return fc.oneof(fc.double({ min: 0, noNaN: true }), hugeNumber)
    case 'enum':
      return fc.constantFrom(...(p.values ?? ['x']))
    default:
      return fc.oneof(fc.stringMatching(/^[a-z0-9./ ]{1,20}$/), hostileString)
  }
}

/** Model arguments: per declared name absent, typed or hostile; sometimes an undeclared or prototype-ish key. */
function argsFor(declared: readonly SkillScriptParam[]): fc.Arbitrary<Record<string, unknown>> {
  const perParam = declared.map((p) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 4, arbitrary: typedValue(p).map((v) => [[p.name, v]]) },
      { weight: 1, arbitrary: modelValue.map((v) => [[p.name, v]]) },
    ),
  )
  const extra = fc.oneof(
    { weight: 8, arbitrary: fc.constant([]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('__proto__', 'constructor', '--a', 'zzz'), modelValue)
        .map((e) => [e]),
    },
  )
  // Object.fromEntries defines own properties, so '__proto__' is a key, as after JSON.parse.
  return fc
    .tuple(extra, ...perParam)
    .map((groups) => Object.fromEntries((groups as [string, unknown][][]).flat()))
}

/**
 * The argv the documented rules give, or undefined where the builder must
 * refuse: flags are `--name value`, booleans `--name` when true, positional
 * parameters their bare value, in declaration order; an undeclared key, a
 * missing required value, a wrong type or an unsafe value refuses.
 */
function expectedArgv(
  declared: readonly SkillScriptParam[],
  args: Record<string, unknown>,
): string[] | undefined {
  const names = new Set(declared.map((p) => p.name))
  if (Object.keys(args).some((k) => !names.has(k))) return undefined
  const out = [...PREFIX, SCRIPT]
  for (const p of declared) {
    const v = Object.hasOwn(args, p.name) ? args[p.name] : undefined
    if (v === undefined || v === null) {
      if (p.required === true) return undefined
      continue
    }
    let text: string
    if (p.type === 'boolean') {
      if (typeof v !== 'boolean') return undefined
      if (v) out.push(`--${p.name}`)
      continue
    }
    if (p.type === 'string' && typeof v === 'string') text = v
    else if (p.type === 'enum' && typeof v === 'string' && p.values?.includes(v)) text = v
    else if (p.type === 'integer' && Number.isSafeInteger(v)) text = String(v)
    else if (p.type === 'number' && Number.isFinite(v)) text = String(v)
    else return undefined
    if (text.startsWith('-') || text.includes('\0') || text.length > 32 * 1024) return undefined
    out.push(...(p.positional === true ? [text] : [`--${p.name}`, text]))
  }
  return out
}

describe('fuzz: argv builder', () => {
  it('validated declarations × hostile model args: exact argv or E_SKILL_SCRIPT_INVALID_ARGS', () => {
    fc.assert(
      fc.property(
        params.chain((ps) => fc.tuple(fc.constant(ps), argsFor(ps))),
        ([declared, args]) => {
          const script: SkillScript = {
            name: 'run',
            path: 'scripts/run.py',
            description: 'fuzz',
            interpreter: 'python',
            params: declared,
          }
          const valid = settle(() => validateSkillScript('fuzz', script, INTERPRETERS))
          if (valid === undefined) return
          let argv: string[] | undefined
          try {
            argv = buildArgv(valid.interpreterArgv, SCRIPT, valid.params, args)
          } catch (err) {
            expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_INVALID_ARGS'), String(err)).toBe(true)
          }
          // The invariant: the builder refuses exactly when the rules refuse, and
          // otherwise every element past the script path is `--<declared name>`
          // or a whole model value that does not start with '-' and holds no NUL.
          expect(argv).toEqual(expectedArgv(valid.params, args))
          if (argv === undefined) return
          const flags = new Set(valid.params.map((p) => `--${p.name}`))
          const tail = argv.slice(PREFIX.length + 1)
          for (const el of tail) {
            expect(typeof el).toBe('string')
            expect(el.includes('\0')).toBe(false)
            if (el.startsWith('-')) expect(flags.has(el)).toBe(true)
          }
        },
      ),
      fuzzParams,
    )
  })

  it('hostile declarations: validation ends in a script or a documented code', () => {
    const anyField = fc.oneof(
      fc.anything({ maxDepth: 2, withNullPrototype: true, withBigInt: true }),
      fc.string({ maxLength: 20 }),
    )
    const hostileParam = fc.oneof(
      param,
      anyField,
      fc.record(
        { name: anyField, type: anyField, values: anyField, positional: anyField },
        { requiredKeys: [] },
      ),
    )
    const declaration = fc.record(
      {
        name: fc.oneof(fc.constant('run'), anyField),
        path: fc.oneof(fc.constant('run.py'), anyField),
        description: fc.oneof(fc.constant('d'), anyField),
        interpreter: fc.oneof(fc.constantFrom('python', '__proto__', 'toString'), anyField),
        params: fc.oneof(fc.array(hostileParam, { maxLength: 4 }), anyField),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(declaration, (script) => {
        settle(() => validateSkillScript('fuzz', script as unknown as SkillScript, INTERPRETERS))
      }),
      fuzzParams,
    )
  })
})
