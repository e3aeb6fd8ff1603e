import { describe, expect, it } from 'vitest'
import { cutToWidth, ONE_COLUMN, textWidth } from '../../src/cli/shared/text-width.js'

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u

// Every character the fast path of `textWidth` takes as one column.
const fast: string[] = []
for (let c = 0; c < 0x10000; c++) {
  const ch = String.fromCharCode(c)
  if (ONE_COLUMN.test(ch)) fast.push(ch)
}

describe('ONE_COLUMN, the fast path of textWidth', () => {
  it('holds only characters of one column, never marks, format characters or emoji', () => {
    expect(fast.length).toBeGreaterThan(700)
    for (const ch of fast) {
      expect(ZERO_WIDTH.test(ch) || EMOJI.test(ch), ch).toBe(false)
    }
  })

  it('holds characters that are each their own grapheme cluster beside any other of them', () => {
    // Cluster breaks are decided pair by pair: each character between every other.
    for (const x of fast) {
      const text = x + fast.join(x)
      expect([...segmenter.segment(text)].length, x).toBe(text.length)
    }
  })

  it('gives the segmenter’s width and cut to typographic text', () => {
    const text = 'Résumé — “naïve” café… • ½'
    expect(textWidth(text)).toBe(text.length)
    expect(cutToWidth(text, 10)).toBe('Résumé —…')
    // Outside the set: a combining mark and a wide character are still measured by cluster.
    expect(textWidth('e\u0301x')).toBe(2)
    expect(textWidth('漢字')).toBe(4)
  })
})
