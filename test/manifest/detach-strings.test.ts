import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detachStrings } from '../../src/manifest/detach-strings.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { validateSkillManifest } from '../../src/manifest/validate-skill-manifest.js'

describe('detachStrings', () => {
  it('gives back an equal value for any JSON value, strings with lone surrogates included', () => {
    const text = fc.string({ unit: 'binary', maxLength: 60 })
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(text, tie('node'), { maxKeys: 4 }),
      ),
    })).node
    fc.assert(
      fc.property(value, (v) => {
        expect(detachStrings(v)).toStrictEqual(v)
      }),
    )
  })

  it('keeps a null prototype, and a __proto__ key as data rather than a prototype', () => {
    const nullProto = Object.assign(Object.create(null), { name: 'x'.repeat(40) })
    const copy = detachStrings(nullProto)
    expect(Object.getPrototypeOf(copy)).toBeNull()
    expect(copy.name).toBe('x'.repeat(40))
    const hostile = JSON.parse('{"__proto__": {"polluted": "yes, a long string here"}}')
    const detached = detachStrings(hostile)
    expect(Object.getPrototypeOf(detached)).toBe(Object.prototype)
    expect(Object.keys(detached)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((detached as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('what it gives back does not hold the text it was sliced from', () => {
    // Garbage collection on demand, for this test only.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heads = 200
    const retainedBy = (keep: (s: string) => string): number => {
      gc()
      const before = process.memoryUsage().heapUsed
      const kept: string[] = []
      for (let i = 0; i < heads; i++) {
        // 100 KB of text per head, made fresh each time (no shared parts).
        const head = `${String(i).padStart(8, '0')}${'y'.repeat(100_000)}name: a-skill-name-of-some-length`
        kept.push(keep(head.slice(100_014, 100_040)))
      }
      gc()
      const grown = process.memoryUsage().heapUsed - before
      expect(kept.every((k) => k.startsWith('a-skill-name'))).toBe(true)
      return grown
    }
    const sliced = retainedBy((s) => s)
    const detached = retainedBy((s) => detachStrings(s))
    // Plain slices keep every 100 KB head alive; detached ones keep 26 characters each.
    expect(sliced).toBeGreaterThan(heads * 50_000)
    expect(detached).toBeLessThan(heads * 1_000)
  })

  it('leaves other objects as they are', () => {
    const date = new Date(0)
    const map = new Map([['a', 'b']])
    expect(detachStrings({ date, map }).date).toBe(date)
    expect(detachStrings({ date, map }).map).toBe(map)
  })

  it('the manifest of a SKILL.md is the same detached or not', () => {
    const text = [
      '---',
      'name: pdf-forms',
      'description: Fills PDF forms from a JSON file of field values, and checks the result.',
      'license: Apache-2.0',
      'metadata:',
      '  author: someone with a long name',
      'domain: documents-and-office-formats',
      '---',
      '# Body',
    ].join('\n')
    const { frontmatter, body } = parseSkillMd(text)
    const verdict = validateSkillManifest(frontmatter, { folderName: 'pdf-forms', body })
    expect(verdict.ok).toBe(true)
    expect(verdict.manifest).toMatchObject({
      name: 'pdf-forms',
      description: 'Fills PDF forms from a JSON file of field values, and checks the result.',
      license: 'Apache-2.0',
      metadata: { author: 'someone with a long name' },
      extra: { domain: 'documents-and-office-formats' },
    })
  })
})
