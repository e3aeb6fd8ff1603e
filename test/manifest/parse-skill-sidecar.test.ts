import { describe, expect, it } from 'vitest'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { rejectsWith } from '../helpers/error-code.js'

function problems(text: string): string {
  return rejectsWith(() => parseSkillSidecar(text), 'E_SKILL_MANIFEST_INVALID').message
}

const script = (extra: string): string =>
  `scripts:\n  - name: run\n    path: scripts/run.sh\n    description: Runs.\n    interpreter: sh\n${extra}`

describe('parseSkillSidecar', () => {
  it('parses scripts, isolated tools and a module', () => {
    const sidecar = parseSkillSidecar(
      `${script('    params:\n      - { name: file, type: string, required: true, positional: true }\n      - { name: mode, type: enum, values: [a, b] }\n')}isolatedTools:\n  - name: t\n    description: T.\n    source: ./tools/t.js\n    params: { type: object }\nmodule: tools.mjs\n`,
    )
    expect(sidecar.scripts[0]).toMatchObject({
      name: 'run',
      path: 'scripts/run.sh',
      interpreter: 'sh',
    })
    expect(sidecar.scripts[0]?.params).toEqual([
      { name: 'file', type: 'string', required: true, positional: true },
      { name: 'mode', type: 'enum', values: ['a', 'b'] },
    ])
    expect(sidecar.isolatedTools[0]).toEqual({
      name: 't',
      description: 'T.',
      source: 'tools/t.js',
      params: { type: 'object' },
    })
    expect(sidecar.module).toBe('tools.mjs')
  })

  it('accepts an empty sidecar', () => {
    expect(parseSkillSidecar('')).toEqual({ scripts: [], isolatedTools: [] })
  })

  it('names an unknown parameter type', () => {
    expect(problems(script('    params:\n      - { name: f, type: file }\n'))).toMatch(
      /scripts\[0\]\.params\[0\]\.type "file" is not one of/,
    )
  })

  it('rejects a script path with ..', () => {
    expect(problems(script('').replace('scripts/run.sh', '../run.sh'))).toMatch(
      /scripts\[0\]\.path .*parent directory/,
    )
  })

  it('rejects duplicate script names', () => {
    expect(
      problems(
        `${script('')}  - name: run\n    path: b.sh\n    description: B.\n    interpreter: sh\n`,
      ),
    ).toMatch(/scripts\[1\]\.name "run" duplicates another script name/)
  })

  it('rejects unknown fields, a non-string interpreter and a bad enum', () => {
    expect(problems(script('    shell: bash\n'))).toMatch(
      /scripts\[0\]\.shell is not a known field/,
    )
    expect(problems(script('').replace('interpreter: sh', 'interpreter: [sh]'))).toMatch(
      /scripts\[0\]\.interpreter must be a non-empty string/,
    )
    expect(problems(script('    params:\n      - { name: m, type: enum }\n'))).toMatch(
      /values must be a non-empty list/,
    )
  })

  it('rejects non-YAML and a non-mapping', () => {
    expect(problems('scripts: [\n')).toMatch(/not valid YAML/)
    expect(problems('- a\n')).toMatch(/top level must be a mapping/)
  })
})
