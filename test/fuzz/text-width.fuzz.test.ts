import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  cutStartToWidth,
  cutToWidth,
  padToWidth,
  textWidth,
} from '../../src/cli/shared/text-width.js'
import { fuzzParams } from '../helpers/fuzz-config.js'

// Text a listing prints: mostly ASCII (the fast path), with now and then a
// wide character, an emoji, a combining mark or a printed escape (the
// segmenting path), so both paths and the switch between them are exercised.
const piece = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: fc.constantFrom(...' abcXYZ09-_./…\\'.split('')) }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('漢', '한', '😀', 'e\u0301', '\\u001b', '\\n', 'é', '\t'),
  },
)
const listingText = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''))
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

describe('text width (property)', () => {
  it('printable ASCII is one column per grapheme cluster, as the segmenter counts them', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        }),
        (text) => {
          expect(textWidth(text)).toBe([...segmenter.segment(text)].length)
        },
      ),
      fuzzParams,
    )
  })

  it('a cut fits its width and keeps a prefix (or a suffix) of the text, marked', () => {
    fc.assert(
      fc.property(listingText, fc.integer({ min: 0, max: 40 }), (text, width) => {
        const fits = textWidth(text) <= width
        const head = cutToWidth(text, width)
        const tail = cutStartToWidth(text, width)
        for (const cut of [head, tail]) {
          expect(textWidth(cut)).toBeLessThanOrEqual(Math.max(width, 0))
          if (fits) expect(cut).toBe(text)
          else if (width <= 0) expect(cut).toBe('')
        }
        if (!fits && width > 0) {
          // The mark takes one column; what is kept is a prefix (cutToWidth,
          // which trims the spaces it would end on) or a suffix of the text.
          expect(head.endsWith('…')).toBe(true)
          expect(text.startsWith(head.slice(0, -1))).toBe(true)
          expect(tail.startsWith('…')).toBe(true)
          expect(text.endsWith(tail.slice(1))).toBe(true)
        }
        expect(textWidth(padToWidth(text, width))).toBe(Math.max(width, textWidth(text)))
      }),
      fuzzParams,
    )
  })
})
