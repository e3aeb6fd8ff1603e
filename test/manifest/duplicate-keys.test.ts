import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Document, parseDocument } from 'yaml'
import { EXACT_REPLAY_PAIRS } from '../../src/manifest/duplicate-keys.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { parseYamlDocument } from '../../src/manifest/parse-yaml-document.js'
import { numRuns } from '../helpers/fuzz-config.js'

// The array scans a parse makes, counted by the elements each visits: `yaml`'s
// own duplicate-key check is an `items.some(...)` per key.
const SCANS = ['some', 'every', 'find', 'findIndex', 'filter', 'includes', 'indexOf'] as const

/** How many array elements `run` scans (a work count, not a time). */
function scannedElements(run: () => void): number {
  const proto = Array.prototype as unknown as Record<string, (...a: unknown[]) => unknown>
  const saved = SCANS.map((name) => proto[name]!)
  let visits = 0
  SCANS.forEach((name, i) => {
    const original = saved[i]!
    proto[name] = function (this: unknown[], ...args: unknown[]) {
      visits += this.length
      return original.apply(this, args)
    }
  })
  try {
    run()
  } finally {
    SCANS.forEach((name, i) => {
      proto[name] = saved[i]!
    })
  }
  return visits
}

const keys = (n: number, line: (i: number) => string): string =>
  Array.from({ length: n }, (_, i) => line(i)).join('')

// Ways to give one mapping many keys: top-level block keys, a flow map, a
// nested block map, the same with a duplicate at the end (every document
// past the replay budget), and a `!!set`.
const SHAPES: Record<string, (n: number) => string> = {
  block: (n) => `name: x\n${keys(n, (i) => `k${i}: 1\n`)}`,
  flow: (n) => `m: {${keys(n, (i) => `k${i}: 1, `)}z: 1}\n`,
  nested: (n) => `m:\n${keys(n, (i) => `  k${i}: [a]\n`)}`,
  duplicateAtEnd: (n) => `${keys(n, (i) => `k${i}: 1\n`)}k0: 2\n`,
  set: (n) => `!!set\n${keys(n, (i) => `? k${i}\n`)}`,
}

/** The errors as `yaml` reports them: code, position and first line (without the trailing colon). */
const errorsOf = (doc: Document.Parsed): string[] =>
  doc.errors.map((e) => `${e.code} ${e.pos[0]} ${e.message.split('\n')[0]!.replace(/:$/, '')}`)

const yamlsOwn = (text: string): Document.Parsed =>
  parseDocument(text, { strict: true, prettyErrors: true, logLevel: 'error' })

describe('duplicate keys in linear work', () => {
  for (const [shape, text] of Object.entries(SHAPES)) {
    it(`${shape}: 10k keys scan about 10 times what 1k keys do (yaml's own check: about 100)`, () => {
      const ours = (n: number) =>
        scannedElements(() => parseYamlDocument(text(n), 'SKILL.md frontmatter', { strict: true }))
      const theirs = (n: number) => scannedElements(() => yamlsOwn(text(n)))
      const [small, large] = [ours(1_000), ours(10_000)]
      expect(large).toBeLessThanOrEqual(12 * small)
      expect(large).toBeLessThan(30 * 10_000)
      // The count sees the quadratic check: yaml alone grows about 100-fold.
      expect(theirs(10_000)).toBeGreaterThan(50 * theirs(1_000))
    })
  }

  it('a hostile SKILL.md of 10k keys under the size cap is refused for its duplicate', () => {
    const md = `---\nname: x\ndescription: d\n${keys(10_000, (i) => `k${i.toString(36)}:\n`)}k0: 2\n---\n`
    expect(md.length).toBeLessThan(64 * 1024)
    const work = scannedElements(() => {
      expect(() => parseSkillMd(md)).toThrow(/Map keys must be unique at line 10003, column 1/)
    })
    expect(work).toBeLessThan(30 * 10_000)
  })
})

// Keys that collide as yaml compares them: `1` and `0x1`, `~` and an empty key, NaNs (never equal).
const key = fc.constantFrom('a', 'b', '"a"', "'b'", '1', '0x1', '"1"', '~', 'null', '.nan', '.NaN')
const value = fc.constantFrom('1', 'x', '"\\q"', '[a, b]', '{a: 1, a: 2}', '{x: 1, y: 2}', '')
const blockMap = (pad: string) =>
  fc
    .array(fc.tuple(key, value), { minLength: 1, maxLength: 6 })
    .map((kvs) => kvs.map(([k, v]) => `${pad}${k}: ${v}`).join('\n'))
const documents = fc
  .tuple(blockMap(''), fc.option(blockMap('  ')), fc.constantFrom('', 'z: "\\q"\n', 'k: [a: 1]\n'))
  .map(([top, nested, tail]) => `${top}\n${nested === null ? '' : `m:\n${nested}\n`}${tail}`)

describe('duplicate keys as yaml finds them', () => {
  it('gives exactly the errors yaml gives, in its order (property)', () => {
    let withDuplicate = 0
    fc.assert(
      fc.property(documents, (text) => {
        const want = errorsOf(yamlsOwn(text))
        if (want.some((e) => e.startsWith('DUPLICATE_KEY'))) withDuplicate++
        expect(errorsOf(parseYamlDocument(text, 'x', { strict: true })), text).toEqual(want)
      }),
      { numRuns: numRuns * 5 },
    )
    expect(withDuplicate).toBeGreaterThan(numRuns)
  })

  it('past the replay budget, places duplicates where yaml does when they are the only errors', () => {
    const n = Math.ceil(Math.sqrt(2 * EXACT_REPLAY_PAIRS)) + 10
    for (const text of [
      `${keys(n, (i) => `k${i}: 1\n`)}k3: 2\nk7: 3\n`,
      `m: {${keys(n, (i) => `${i}: 1, `)}0x1: 2}\n`,
      `${keys(n, (i) => `k${i}: 1\n`)}m:\n  a: 1\n  a: 2\nk1: 2\n`,
    ])
      expect(errorsOf(parseYamlDocument(text, 'x', { strict: true }))).toEqual(
        errorsOf(yamlsOwn(text)),
      )
  })
})
