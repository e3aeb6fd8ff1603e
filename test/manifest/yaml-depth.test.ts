import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkYamlDepth, MAX_YAML_DEPTH } from '../../src/manifest/check-yaml-depth.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { codeOf } from '../helpers/error-code.js'
import { discover, makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

// Deep enough that the old recursive composer aborted the process.
const deepSeq = (n: number): string => `a: ${'['.repeat(n)}${']'.repeat(n)}\n`
const deepMap = (n: number): string => `a: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`
const deepBlock = (n: number): string => `a:\n${'- '.repeat(n)}x\n`
// n block maps, each indented one column past its parent (n²/2 bytes).
const deepBlockMaps = (n: number): string =>
  Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n')

/** A sidecar as authors write them: ten scripts and ten isolated tools, each with typed params. */
function realisticSidecar(): string {
  const scripts = Array.from(
    { length: 10 },
    (_, i) => `  # Script ${i}: convert [input] -> {output}
  - name: convert-${i}
    path: scripts/convert_${i}.py
    description: >
      Converts a document; the output format is one of
      [pdf, docx] - see SKILL.md.
    interpreter: python3
    params:
      - name: input
        type: string
        required: true
        positional: true
        description: "Path of the file to read: 'in/…'"
      - name: format
        type: enum
        values: [pdf, docx, "md"]
      - { name: pages, type: integer }
      - name: verbose
        type: boolean
`,
  ).join('')
  const tools = Array.from(
    { length: 10 },
    (_, i) => `  - name: summarize-${i}
    description: |
      Summarizes records.
        - keeps [brackets] and {braces} as text
    source: tools/summarize_${i}.js
    params:
      type: object
      required: [records]
      properties:
        records:
          type: array
          items:
            type: object
            properties:
              id: { type: string }
              tags: { type: array, items: { type: string, enum: [a, b, c] } }
        limit:
          type: integer
          minimum: 1 # at least one
`,
  ).join('')
  return `# Tools for the converter skill\nscripts:\n${scripts}isolatedTools:\n${tools}module: tools.mjs\n`
}

const indent = (text: string, n: number): string => text.replace(/^(?=.)/gm, ' '.repeat(n))

/** `n` collections nested: block maps to half the depth, then flow sequences. */
function nestedTo(n: number): string {
  const block = Math.floor(n / 2)
  const lines = Array.from({ length: block }, (_, i) => `${'  '.repeat(i)}k${i}:`)
  lines[block - 1] += ` ${'['.repeat(n - block)}x${']'.repeat(n - block)}`
  return `${lines.join('\n')}\n`
}

describe('YAML nesting is bounded before parsing', () => {
  it('refuses deep frontmatter and sidecars with E_SKILL_MANIFEST_INVALID; normal YAML still parses', () => {
    for (const yaml of [deepSeq(15_000), deepMap(8_000), deepBlock(15_000)]) {
      expect(codeOf(() => parseSkillMd(`---\nname: x\ndescription: y\n${yaml}---\n`))).toBe(
        'E_SKILL_MANIFEST_INVALID',
      )
    }
    for (const yaml of [deepSeq(100_000), deepMap(100_000), deepBlock(100_000)])
      expect(codeOf(() => parseSkillSidecar(yaml))).toBe('E_SKILL_MANIFEST_INVALID')
    // Brackets inside quotes and comments are text, not nesting.
    const quoted = `a: "${'['.repeat(200)}"\nb: '${'{'.repeat(200)}' # ${'['.repeat(200)}\n`
    expect(parseSkillMd(`---\nname: x\ndescription: y\n${quoted}---\n`).frontmatter.a).toBe(
      '['.repeat(200),
    )
    const ok = deepSeq(MAX_YAML_DEPTH / 4)
    expect(() => parseSkillMd(`---\nname: x\ndescription: y\n${ok}---\n`)).not.toThrow()
    expect(parseSkillSidecar('scripts: []\n').scripts).toEqual([])
  })

  it('accepts realistic multi-tool sidecars and long frontmatter lists (depth is per path, not per document)', () => {
    const sidecar = parseSkillSidecar(realisticSidecar())
    expect(sidecar.scripts).toHaveLength(10)
    expect(sidecar.isolatedTools).toHaveLength(10)
    expect(sidecar.scripts[9]?.params).toHaveLength(4)
    expect(sidecar.module).toBe('tools.mjs')
    const tools = Array.from({ length: 70 }, (_, i) => `  - Bash(tool-${i}:*)\n`).join('')
    const md = parseSkillMd(`---\nname: x\ndescription: y\nallowed-tools:\n${tools}---\nBody.\n`)
    expect(md.frontmatter['allowed-tools']).toHaveLength(70)
  })

  it('holds the same limit for every caller: 64 levels parse, 65 are refused', () => {
    for (const depth of [MAX_YAML_DEPTH, MAX_YAML_DEPTH + 1]) {
      const verdict = depth > MAX_YAML_DEPTH ? 'E_SKILL_MANIFEST_INVALID' : 'resolved'
      expect(codeOf(() => checkYamlDepth(nestedTo(depth), 'x'))).toBe(verdict)
      // A pair in a flow sequence composes to a one-pair map: one more level.
      const flowPair = `${'['.repeat(depth - 1)}k: x${']'.repeat(depth - 1)}`
      expect(codeOf(() => checkYamlDepth(flowPair, 'x'))).toBe(verdict)
      // The frontmatter's own mapping is the first level.
      const fm = `name: x\ndescription: y\nmeta:\n${indent(nestedTo(depth - 1), 2)}`
      expect(codeOf(() => parseSkillMd(`---\n${fm}---\n`))).toBe(verdict)
      // An isolated tool's params schema is free-form, so it can nest that deep and stay valid:
      // the sidecar's mapping, isolatedTools, the tool and its params are four levels.
      const sidecar = `isolatedTools:\n  - name: t\n    description: d\n    source: t.js\n    params:\n      type: object\n      properties:\n${indent(nestedTo(depth - 4), 8)}`
      expect(codeOf(() => parseSkillSidecar(sidecar))).toBe(verdict)
    }
  })

  it('is the only way into the yaml package: every manifest parse holds the limit', () => {
    const src = resolve(import.meta.dirname, '../../src')
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(src, f), 'utf8')] as const)
    const using = (pattern: RegExp) =>
      files
        .filter(([, text]) => pattern.test(text))
        .map(([f]) => f)
        .sort()
    // The package is loaded in one place, lazily (yaml-lib.ts); every other mention is a type.
    expect(using(/^import (?!type )[^\n]*from 'yaml'/m)).toEqual([])
    expect(using(/['"]yaml['"]\)/)).toEqual(['manifest/yaml-lib.ts'])
    // duplicate-keys.ts parses nothing: it reads the documents parse-yaml-document.ts composed.
    expect(using(/yamlLib\(\)/).filter((f) => f !== 'manifest/yaml-lib.ts')).toEqual([
      'manifest/check-yaml-depth.ts',
      'manifest/duplicate-keys.ts',
      'manifest/parse-yaml-document.ts',
    ])
  })

  it('refuses 10,000 nested flow sequences or block maps before the parser builds them', () => {
    for (const yaml of [`${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, deepBlockMaps(10_000)]) {
      expect(() => checkYamlDepth(yaml, 'skillhost.yaml')).toThrow(
        'skillhost.yaml nests YAML deeper than 64 levels; flatten it.',
      )
      expect(codeOf(() => parseSkillSidecar(yaml))).toBe('E_SKILL_MANIFEST_INVALID')
    }
  })

  it('discovery skips a skill with deep frontmatter or a deep sidecar and serves the others', async () => {
    const root = await makeTree({
      'good/SKILL.md': skillMd('good'),
      'deep-md/SKILL.md': `---\nname: deep-md\ndescription: d\n${deepSeq(15_000)}---\n`,
      'deep-side/SKILL.md': skillMd('deep-side'),
      'deep-side/skillhost.yaml': deepSeq(100_000),
    })
    roots.push(root)
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills.map((s) => s.id)).toEqual(['good'])
    const errors = problems.filter((p) => p.severity === 'error')
    expect(errors.map((p) => p.location).sort()).toEqual(['deep-md', 'deep-side'])
    expect(errors.every((p) => p.code === 'E_SKILL_MANIFEST_INVALID')).toBe(true)
  })
})
