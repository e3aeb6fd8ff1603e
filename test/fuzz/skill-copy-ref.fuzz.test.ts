import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import {
  fileSystemCopyKey,
  formatSkillCopyRef,
  MAX_SKILL_REF_LENGTH,
  parseSkillRef,
  skillCopyKey,
} from '../../src/skill-model/skill-copy-ref.js'
import { fuzzParams, settle } from '../helpers/fuzz-config.js'

// Names as folders and sources have them: anything, with what a ref must escape made likely.
const char = fc.oneof(
  fc.constantFrom(':', '/', '%', ' ', '.', '-', '~', '\n', '\u202e', 'é', '😀', '"', '\\'),
  fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
)
const name = fc.string({ unit: char, minLength: 1, maxLength: 16 })
const segment = name.filter((s) => s !== '.' && s !== '..' && !/[/\0]/.test(s))
// Texts a model might send: refs with one character changed, and noise.
const noise = fc.string({
  unit: fc.constantFrom('a', '1', ':', '/', '%', '2', 'F', 'f', '.', ' ', '\u0000', 'é'),
  maxLength: 40,
})

// Valid refs with one character put in somewhere: the near misses a parser must not accept loosely.
const mutated = fc
  .tuple(name, fc.array(segment, { minLength: 1, maxLength: 3 }), fc.nat(), noise)
  .map(([source, path, at, extra]) => {
    const ref = formatSkillCopyRef(source, skillCopyKey(path) ?? 'x') ?? 'x:y'
    const i = at % (ref.length + 1)
    return `${ref.slice(0, i)}${extra.slice(0, 1)}${ref.slice(i)}`
  })

/** Only the characters the grammar allows: no space, quote or control character. */
const SAFE = /^[A-Za-z0-9._~%:/-]+$/

describe('skill refs (fuzz)', () => {
  it('read back to the source and copy key they were made from, in safe characters', () => {
    fc.assert(
      fc.property(name, fc.array(segment, { minLength: 1, maxLength: 5 }), (source, path) => {
        const key = skillCopyKey(path)
        const ref = key === undefined ? undefined : formatSkillCopyRef(source, key)
        if (ref === undefined) return
        expect(ref).toMatch(SAFE)
        expect(ref.length).toBeLessThanOrEqual(MAX_SKILL_REF_LENGTH)
        expect(parseSkillRef(ref)).toEqual({ kind: 'copy', source, key: path })
      }),
      fuzzParams,
    )
  })

  it('give two different copies two different refs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        (r1, p1, r2, p2) => {
          const a = fileSystemCopyKey(r1, p1.join('/'))
          const b = fileSystemCopyKey(r2, p2.join('/'))
          if (a === undefined || b === undefined) return
          expect(a === b).toBe(r1 === r2 && p1.join('/') === p2.join('/'))
        },
      ),
      fuzzParams,
    )
  })

  it('accept only their one written form: anything else is E_SKILL_NOT_FOUND, never echoed', () => {
    fc.assert(
      fc.property(fc.oneof(noise, mutated, fc.string({ maxLength: 700 })), (text) => {
        let thrown: unknown
        const parsed = settle(() => {
          try {
            return parseSkillRef(text)
          } catch (err) {
            thrown = err
            throw err
          }
        })
        if (parsed === undefined) {
          expect(SkillHostError.is(thrown, 'E_SKILL_NOT_FOUND')).toBe(true)
          if (text.length > 3) expect((thrown as Error).message).not.toContain(text)
          return
        }
        if (parsed.kind === 'id') {
          expect(text).not.toContain(':')
          expect(parsed.id).toBe(text)
          return
        }
        // A qualified ref that reads back is written exactly as the formatter writes it.
        expect(formatSkillCopyRef(parsed.source, skillCopyKey(parsed.key)!)).toBe(text)
        expect(parsed.key).not.toContain('..')
      }),
      fuzzParams,
    )
  })
})
