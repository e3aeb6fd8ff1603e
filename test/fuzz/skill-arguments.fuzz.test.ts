import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { splitSkillArguments, substituteSkillBody } from '../../src/manager/skill-arguments.js'
import { fuzzParams } from '../helpers/fuzz-config.js'

// Words made of what a shell treats specially, so quoting has work to do.
const word = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\t', '\n', "'", '"', '\\', '$', '1', 'é', '😀'),
  maxLength: 12,
})
const words = fc.array(word, { maxLength: 8 })
// Words a shell leaves alone: no whitespace, quotes or backslashes.
const plain = fc.string({
  unit: fc.constantFrom('a', 'Z', '-', '=', '.', '/', '$', '1', 'é'),
  minLength: 1,
  maxLength: 10,
})
const gap = fc.string({ unit: fc.constantFrom(' ', '\t', '\n'), minLength: 1, maxLength: 3 })

const singleQuoted = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`
const doubleQuoted = (w: string) => `"${w.replace(/(["\\])/g, '\\$1')}"`

describe('splitSkillArguments (fuzz)', () => {
  it('gives back any words single-quoted and joined', () => {
    fc.assert(
      fc.property(words, (ws) => {
        expect(splitSkillArguments(ws.map(singleQuoted).join(' '))).toEqual(ws)
      }),
      fuzzParams,
    )
  })

  it('gives back any words double-quoted and joined', () => {
    fc.assert(
      fc.property(words, (ws) => {
        expect(splitSkillArguments(ws.map(doubleQuoted).join(' '))).toEqual(ws)
      }),
      fuzzParams,
    )
  })

  it('splits unquoted words on any run of whitespace, leading and trailing included', () => {
    fc.assert(
      fc.property(fc.array(plain, { maxLength: 8 }), gap, gap, (ws, lead, sep) => {
        expect(splitSkillArguments(lead + ws.join(sep) + lead)).toEqual(ws)
      }),
      fuzzParams,
    )
  })

  it('never throws, and re-quoting what it split splits the same again', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (raw) => {
        const once = splitSkillArguments(raw)
        expect(splitSkillArguments(once.map(singleQuoted).join(' '))).toEqual(once)
      }),
      fuzzParams,
    )
  })

  it('fills $N with exactly the N-th word, never rescanning a value', () => {
    fc.assert(
      fc.property(words, fc.nat({ max: 9 }), (ws, n) => {
        const raw = ws.map(singleQuoted).join(' ')
        const body = substituteSkillBody(`<$${n}>`, { arguments: raw, skillDir: '/skill' })
        // The body names no $ARGUMENTS, so what was given is appended too.
        const tail = raw === '' ? '' : `\n\nARGUMENTS: ${raw}`
        expect(body).toBe(`${n < ws.length ? `<${ws[n]}>` : `<$${n}>`}${tail}`)
      }),
      fuzzParams,
    )
  })
})
