import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { scriptDeclarationProblems } from '../../src/skill-model/script-declaration.js'
import { withTimeoutParam } from '../../src/tiers/isolated/with-timeout-param.js'
import { validateSkillScript } from '../../src/tiers/scripts/run/validate-skill-script.js'
import { codeOf } from '../helpers/error-code.js'

const good = {
  name: 'run',
  path: 'scripts/run.py',
  description: 'Runs it.',
  interpreter: 'python',
  params: [
    { name: 'input', type: 'string', positional: true, required: true },
    { name: 'mode', type: 'enum', values: ['fast', 'slow'] },
    { name: 'verbose', type: 'boolean' },
  ],
}
const interpreters = { python: ['/usr/bin/python3'] }
const param = (p: Record<string, unknown>) => ({ ...good, params: [p] })

// Issue 9: `skillhost validate` (the sidecar parser) and load
// (`validateSkillScript`) once disagreed, e.g. on a parameter named `_x`.
// Both now call one validator; this table pins that they agree, both ways.
const bad: Record<string, unknown> = {
  'a parameter named _x': param({ name: '_x', type: 'string' }),
  'a parameter named timeout_seconds': param({ name: 'timeout_seconds', type: 'number' }),
  'a parameter declared twice': {
    ...good,
    params: [
      { name: 'a', type: 'string' },
      { name: 'a', type: 'number' },
    ],
  },
  'an unknown parameter type': param({ name: 'f', type: 'file' }),
  'an enum without values': param({ name: 'm', type: 'enum' }),
  'an enum repeating a value': param({ name: 'm', type: 'enum', values: ['a', 'a'] }),
  'an enum value that injects an option': param({ name: 'm', type: 'enum', values: ['-rf'] }),
  'values on a non-enum': param({ name: 's', type: 'string', values: ['a'] }),
  'an optional positional': param({ name: 'p', type: 'string', positional: true }),
  'a boolean positional': param({ name: 'b', type: 'boolean', positional: true, required: true }),
  'a non-boolean required': param({ name: 'r', type: 'string', required: 'yes' }),
  'a script name starting with -': { ...good, name: '-x' },
  'a script name starting with _': { ...good, name: '_x' },
  'an empty description': { ...good, description: ' ' },
  'an empty interpreter': { ...good, interpreter: '' },
  'a path with ..': { ...good, path: '../run.py' },
  'an absolute path': { ...good, path: '/etc/passwd' },
  'params that are not a list': { ...good, params: { name: 'x' } },
}

describe('validate and load agree on every declaration problem', () => {
  it('accepts the same valid declaration in both', () => {
    expect(scriptDeclarationProblems(good)).toEqual([])
    expect(parseSkillSidecar(stringify({ scripts: [good] })).scripts[0]).toMatchObject({
      name: 'run',
      path: 'scripts/run.py',
    })
    expect(validateSkillScript('s', good as never, interpreters).interpreterArgv).toEqual([
      '/usr/bin/python3',
    ])
  })

  it('refuses an isolated tool declaring timeout_seconds in validate as load does', () => {
    const tool = {
      name: 'calc',
      description: 'Adds.',
      source: 'calc.js',
      params: { type: 'object', properties: { timeout_seconds: { type: 'string' } } },
    }
    expect(codeOf(() => parseSkillSidecar(stringify({ isolatedTools: [tool] })))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
    expect(codeOf(() => withTimeoutParam(tool.params, 10))).toBe('E_SKILL_MANIFEST_INVALID')
  })

  for (const [what, decl] of Object.entries(bad)) {
    it(`refuses ${what} in both`, () => {
      expect(scriptDeclarationProblems(decl).length).toBeGreaterThan(0)
      expect(codeOf(() => parseSkillSidecar(stringify({ scripts: [decl] })))).toBe(
        'E_SKILL_MANIFEST_INVALID',
      )
      expect(codeOf(() => validateSkillScript('s', decl as never, interpreters))).toMatch(
        /^E_SKILL_(MANIFEST_INVALID|SOURCE_PATH_REJECTED)$/,
      )
    })
  }
})
