import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSimpleFrontmatter } from '../../src/manifest/parse-simple-frontmatter.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { rejectsWith } from '../helpers/error-code.js'
import { numRuns } from '../helpers/fuzz-config.js'

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

/** What `parseSkillSidecar` gives for `text`: its value, or its error's code and message. */
function outcome(text: string): unknown {
  try {
    return { value: parseSkillSidecar(text) }
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message }
  }
}

/**
 * The same document as `yaml` alone would read it: a leading document
 * marker means nothing to YAML, and takes the text out of the fast subset.
 */
function throughYaml(text: string): unknown {
  const marked = `---\n${text}`
  expect(parseSimpleFrontmatter(marked)).toBeUndefined()
  const read = outcome(marked) as { message?: string }
  // The marker is one line more: an error's line is counted from the text's own first line.
  if (read.message !== undefined)
    read.message = read.message.replace(/ at line (\d+)/, (_, n) => ` at line ${Number(n) - 1}`)
  return read
}

/** A scalar as sidecars write it: plain, single- or double-quoted. */
const scalar = fc
  .tuple(
    fc.constantFrom(
      'Count words.',
      'a path: relative',
      "it's here",
      'x #1',
      '12345678901234567890',
      '7',
      'true',
      'ok',
    ),
    fc.constantFrom('plain', 'single', 'double'),
  )
  .map(([v, q]) =>
    q === 'single' ? `'${v.replaceAll("'", "''")}'` : q === 'double' ? JSON.stringify(v) : v,
  )
const param = fc
  .record({
    name: fc.constantFrom('file', 'top', 'mode', 'Bad Name'),
    type: fc.constantFrom('string', 'integer', 'boolean', 'enum', 'float'),
    required: fc.constantFrom(undefined, 'true', 'false', 'yes'),
    positional: fc.constantFrom(undefined, 'true'),
    description: fc.option(scalar, { nil: undefined }),
    values: fc.constantFrom(undefined, '[a, b]', '\n          - a\n          - "b"'),
  })
  .map((p) =>
    Object.entries(p)
      .filter(([, v]) => v !== undefined)
      .map(([k, v], i) => `${i === 0 ? '      - ' : '        '}${k}: ${v}`)
      .join('\n'),
  )
const scriptEntry = fc
  .tuple(
    fc.constantFrom('count', 'run', 'count'),
    fc.constantFrom('scripts/count.sh', 'run.py', '../up.sh'),
    scalar,
    fc.constantFrom('sh', 'python3', 'bash'),
    fc.array(param, { maxLength: 3 }),
  )
  .map(([name, path, description, interpreter, params]) =>
    [
      `  - name: ${name}`,
      `    path: ${path}`,
      `    description: ${description}`,
      `    interpreter: ${interpreter}`,
      ...(params.length > 0 ? ['    params:', ...params] : []),
    ].join('\n'),
  )
/** Sidecars shaped as real ones are: scripts with params, sometimes a module or an unknown key. */
const sidecars = fc
  .tuple(
    fc.array(scriptEntry, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('', 'module: tools.mjs\n', 'extra: 1\n'),
  )
  .map(([scripts, tail]) => `scripts:\n${scripts.join('\n')}\n${tail}`)

describe('parseSkillSidecar reads without the yaml package what the fast subset reads', () => {
  it('gives what yaml gives, value or error, on generated sidecars and the examples (property)', () => {
    let fast = 0
    let runs = 0
    fc.assert(
      fc.property(sidecars, (text) => {
        runs++
        if (parseSimpleFrontmatter(text) !== undefined) fast++
        expect(outcome(text)).toStrictEqual(throughYaml(text))
      }),
      { numRuns: numRuns * 2 },
    )
    // Most such sidecars take the fast path: the comparison is not only of declined ones.
    expect(fast, `${fast} of ${runs}`).toBeGreaterThan(runs / 2)
    for (const name of ['word-count', 'unit-convert', 'json-tools']) {
      const text = readFileSync(
        new URL(`../../examples/skills/${name}/skillhost.yaml`, import.meta.url),
        'utf8',
      )
      expect(outcome(text)).toStrictEqual(throughYaml(text))
    }
  })

  it('hands on plain objects, as yaml does: a params schema keeps Object.prototype', () => {
    const { isolatedTools, scripts } = parseSkillSidecar(
      'isolatedTools:\n  - name: t\n    description: T.\n    source: t.js\n    params:\n      type: object\n      properties:\n        n:\n          type: integer\nscripts:\n  - name: r\n    path: r.sh\n    description: R.\n    interpreter: sh\n',
    )
    const params = isolatedTools[0]?.params as Record<string, unknown>
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(params.properties)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(scripts[0])).toBe(Object.prototype)
  })
})
