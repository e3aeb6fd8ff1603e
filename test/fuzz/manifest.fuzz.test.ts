import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parse as yamlParse } from 'yaml'
import { parseSimpleFrontmatter } from '../../src/manifest/parse-simple-frontmatter.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { normalizeSkillPath } from '../../src/skill-model/skill-path.js'
import { fuzzParams, settle } from '../helpers/fuzz-config.js'
import { canonicalValue, yamlPathValue } from '../helpers/yaml-path.js'

// YAML-ish alphabet so random text reaches the parser's interesting branches.
const yamlChar = fc.constantFrom(
  ...'ab-_:# \n\t\'"[]{}&*!|>%@`~?,.0123456789\\\r\ufeff\u2028é'.split(''),
)
const yamlText = fc.string({ unit: yamlChar, maxLength: 300 })

// Deeply nested YAML once crashed Node (security.md item 8); documents past
// 64 levels are now refused before parsing, so depths beyond it are fuzzed.
const MAX_DEPTH = 300
const nested = fc
  .tuple(fc.integer({ min: 1, max: MAX_DEPTH }), fc.constantFrom('[', '{', '- '))
  .map(([depth, open]) =>
    open === '- '
      ? Array.from({ length: depth }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n')
      : `k: ${open.repeat(depth)}${open === '[' ? ']' : '}'.repeat(1)}${(open === '[' ? ']' : '}').repeat(depth - 1)}`,
  )

const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/)
const plainValue = fc.stringMatching(/^[a-z][a-z0-9 ./]{0,20}[a-z0-9]$/)
const simpleFrontmatter = fc.uniqueArray(fc.tuple(key, plainValue), {
  minLength: 1,
  maxLength: 8,
  selector: ([k]) => k,
})

describe('fuzz: SKILL.md parser', () => {
  it('never crashes on arbitrary text: a result or E_SKILL_MANIFEST_INVALID', () => {
    fc.assert(
      fc.property(fc.oneof(yamlText, fc.string({ maxLength: 300 }), nested), (fm) => {
        const result = settle(() => parseSkillMd(`---\n${fm}\n---\nbody`))
        if (result) expect(typeof result.body).toBe('string')
      }),
      fuzzParams,
    )
  })

  it('never crashes on arbitrary whole files', () => {
    fc.assert(
      fc.property(fc.string({ unit: yamlChar, maxLength: 400 }), (text) => {
        settle(() => parseSkillMd(text))
      }),
      fuzzParams,
    )
  })

  it('round-trips simple generated frontmatter, agreeing with the yaml package', () => {
    fc.assert(
      fc.property(simpleFrontmatter, (entries) => {
        const fm = entries.map(([k, v]) => `${k}: ${v}`).join('\n')
        const expected = yamlParse(fm)
        expect({ ...parseSkillMd(`---\n${fm}\n---\n`).frontmatter }).toEqual(expected)
        const simple = parseSimpleFrontmatter(fm)
        if (simple !== undefined) expect({ ...simple }).toEqual(expected)
      }),
      fuzzParams,
    )
  })

  it('the fast path agrees with the yaml package on everything it accepts', () => {
    fc.assert(
      fc.property(yamlText, (fm) => {
        const simple = parseSimpleFrontmatter(fm)
        if (simple === undefined) return
        // The yaml path parseSkillMd takes otherwise (strict, exact big integers), type for type.
        expect(canonicalValue(simple)).toBe(canonicalValue(yamlPathValue(fm)))
      }),
      fuzzParams,
    )
  })
})

describe('fuzz: sidecar parser', () => {
  const sidecarish = fc.oneof(
    yamlText,
    nested,
    fc
      .tuple(
        fc.string({ unit: yamlChar, maxLength: 40 }),
        fc.string({ unit: yamlChar, maxLength: 40 }),
      )
      .map(
        ([p, n]) =>
          `scripts:\n  - name: ${JSON.stringify(n)}\n    path: ${JSON.stringify(p)}\n    params:\n      - name: a\n        type: string\n`,
      ),
  )
  it('never crashes: a sidecar or E_SKILL_MANIFEST_INVALID; paths come out normalized', () => {
    fc.assert(
      fc.property(sidecarish, (text) => {
        const sidecar = settle(() => parseSkillSidecar(text))
        for (const s of sidecar?.scripts ?? []) {
          expect(s.path.split('/')).not.toContain('..')
          expect(s.path.startsWith('/')).toBe(false)
        }
      }),
      fuzzParams,
    )
  })
})

describe('fuzz: path normalizer', () => {
  const segment = fc.oneof(
    fc.constantFrom(
      '..',
      '.',
      '',
      '~',
      'C:',
      'con',
      'NUL.txt',
      'a',
      'b.sh',
      '\\',
      '\0',
      '\u0001',
      ' .. ',
    ),
    fc.string({ unit: fc.constantFrom(...'ab./\\:~ .\u0000'.split('')), maxLength: 6 }),
  )
  const pathArb = fc.oneof(
    fc
      .array(segment, { maxLength: 8 })
      .chain((segs) => fc.constantFrom('/', '\\').map((sep) => segs.join(sep))),
    fc.string({ maxLength: 100 }),
    fc.string({ minLength: 1000, maxLength: 1100 }),
  )
  it('never yields a `..` segment, a leading `/`, or an empty path; else E_SKILL_SOURCE_PATH_REJECTED', () => {
    fc.assert(
      fc.property(pathArb, (p) => {
        const out = settle(() => normalizeSkillPath(p))
        if (out === undefined) return
        expect(out.split('/')).not.toContain('..')
        expect(out.split('/')).not.toContain('')
        expect(out.startsWith('/')).toBe(false)
        expect(out.includes('\\')).toBe(false)
        expect(normalizeSkillPath(out)).toBe(out)
      }),
      fuzzParams,
    )
  })
})
