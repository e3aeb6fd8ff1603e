import { describe, expect, it } from 'vitest'
import { TOOL_NAME_PATTERN } from '../../../src/common/tool.js'
import { scriptToolName } from '../../../src/skill-model/script-tool-name.js'
import type { SkillScriptParam } from '../../../src/tiers/scripts/index.js'
import {
  buildArgv,
  scriptInputSchema,
  validateSkillScript,
} from '../../../src/tiers/scripts/internal.js'
import { codeOf, rejectsWith } from '../../helpers/error-code.js'

const interpreters = { sh: ['/bin/sh'], python: ['/usr/bin/python3', '-I'] }

describe('scriptToolName', () => {
  it('builds run_<skill>_<script>, sanitized deterministically and provider-safe', () => {
    expect(scriptToolName('pdf', 'extract')).toBe('run_pdf_extract')
    expect(scriptToolName('pdf-tools', 'extract.text')).toBe('run_pdf_tools_extract_text')
    expect(scriptToolName('a--b', 'ü')).toBe('run_a_b__')
    const long = scriptToolName('x'.repeat(64), 'y'.repeat(64))
    expect(long).toHaveLength(64)
    expect(long).toMatch(TOOL_NAME_PATTERN)
    expect(scriptToolName('x'.repeat(64), 'y'.repeat(64))).toBe(long)
    expect(scriptToolName('x'.repeat(64), `${'y'.repeat(63)}z`)).not.toBe(long)
  })
})

describe('buildArgv', () => {
  const params: SkillScriptParam[] = [
    { name: 'input', type: 'string', positional: true, required: true },
    { name: 'pages', type: 'integer' },
    { name: 'verbose', type: 'boolean' },
    { name: 'mode', type: 'enum', values: ['fast', 'exact'] },
    { name: 'scale', type: 'number' },
    { name: 'quiet', type: 'boolean' },
  ]

  it('puts the interpreter, the script, then params in declaration order', () => {
    const argv = buildArgv(['/usr/bin/python3', '-I'], '/skill/run.py', params, {
      scale: 1.5,
      verbose: true,
      quiet: false,
      input: 'a file.pdf',
      mode: 'fast',
      pages: 3,
    })
    expect(argv).toEqual([
      '/usr/bin/python3',
      '-I',
      '/skill/run.py',
      'a file.pdf',
      '--pages',
      '3',
      '--verbose',
      '--mode',
      'fast',
      '--scale',
      '1.5',
    ])
  })

  it.each([
    ['--rm', { input: '--rm' }],
    ['-rf', { input: '-rf' }],
    ['NUL', { input: 'a\0b' }],
    ['negative number', { input: 'x', pages: -1 }],
    ['wrong type', { input: 'x', pages: '3' }],
    ['non-integer', { input: 'x', pages: 1.5 }],
    ['unknown enum', { input: 'x', mode: 'slow' }],
    ['missing required', {}],
    ['undeclared', { input: 'x', rm: true }],
    ['boolean as string', { input: 'x', verbose: 'true' }],
  ])('rejects %s', (_label, args) => {
    expect(codeOf(() => buildArgv(['/bin/sh'], '/skill/x', params, args))).toBe(
      'E_SKILL_SCRIPT_INVALID_ARGS',
    )
  })
})

describe('validateSkillScript', () => {
  const base = { name: 'run', path: './scripts/run.sh', description: 'runs', interpreter: 'sh' }

  it('normalizes the path and resolves the interpreter prefix', () => {
    const v = validateSkillScript('demo', { ...base, interpreter: 'python' }, interpreters)
    expect(v.path).toBe('scripts/run.sh')
    expect(v.interpreterArgv).toEqual(['/usr/bin/python3', '-I'])
  })

  it('rejects an interpreter absent from the allow-list at load, naming the allowed ones', () => {
    const err = rejectsWith(
      () => validateSkillScript('pdf', { ...base, interpreter: 'ruby' }, interpreters),
      'E_SKILL_MANIFEST_INVALID',
    )
    expect(err.message).toBe(
      "Skill 'pdf' declares interpreter 'ruby' for script 'run'; allowed: python, sh.",
    )
    expect(
      codeOf(() => validateSkillScript('pdf', { ...base, interpreter: '__proto__' }, interpreters)),
    ).toBe('E_SKILL_MANIFEST_INVALID')
  })

  it.each([
    ['optional positional', [{ name: 'f', type: 'string', positional: true }]],
    ['boolean positional', [{ name: 'f', type: 'boolean', positional: true, required: true }]],
    [
      'duplicate',
      [
        { name: 'f', type: 'string' },
        { name: 'f', type: 'integer' },
      ],
    ],
    ['reserved name', [{ name: 'timeout_seconds', type: 'integer' }]],
    ['bad name', [{ name: '--rm', type: 'string' }]],
    ['unknown type', [{ name: 'f', type: 'object' }]],
    ['empty enum', [{ name: 'f', type: 'enum', values: [] }]],
    ['injecting enum', [{ name: 'f', type: 'enum', values: ['-rf'] }]],
    ['values on a string', [{ name: 'f', type: 'string', values: ['a'] }]],
  ])('rejects a declaration with %s', (_label, params) => {
    const decl = { ...base, params: params as SkillScriptParam[] }
    expect(codeOf(() => validateSkillScript('demo', decl, interpreters))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
  })

  it('rejects values a custom source could hand it without throwing a TypeError', () => {
    // Found by test/fuzz: String() of a null-prototype object throws.
    const odd = Object.create(null)
    const decls = [
      { ...base, name: odd },
      { ...base, interpreter: odd },
      { ...base, path: odd },
      { ...base, params: [{ name: odd, type: 'string' }] },
      { ...base, params: [{ name: 10n, type: 'string' }] },
      { ...base, params: [{ name: 'f', type: odd }] },
      null,
      'run',
    ]
    for (const decl of decls) {
      expect(codeOf(() => validateSkillScript('demo', decl as never, interpreters))).toMatch(
        /^E_SKILL_(MANIFEST_INVALID|SOURCE_PATH_REJECTED)$/,
      )
    }
  })

  it('rejects an unsafe path at load', () => {
    expect(codeOf(() => validateSkillScript('demo', { ...base, path: '../x' }, interpreters))).toBe(
      'E_SKILL_SOURCE_PATH_REJECTED',
    )
  })
})

describe('scriptInputSchema', () => {
  it('lists params, required ones and a bounded timeout_seconds, and nothing else', () => {
    const schema = scriptInputSchema(
      [
        { name: 'input', type: 'string', positional: true, required: true, description: 'file' },
        { name: 'mode', type: 'enum', values: ['a', 'b'] },
        { name: 'n', type: 'integer' },
        { name: 'v', type: 'boolean' },
      ],
      30,
    )
    expect(schema).toMatchObject({
      type: 'object',
      required: ['input'],
      additionalProperties: false,
      properties: {
        input: { type: 'string', description: 'file' },
        mode: { type: 'string', enum: ['a', 'b'] },
        n: { type: 'integer', minimum: 0 },
        v: { type: 'boolean' },
        timeout_seconds: { type: 'integer', minimum: 1, maximum: 30 },
      },
    })
  })
})
