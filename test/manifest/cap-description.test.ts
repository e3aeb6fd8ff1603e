import { describe, expect, it } from 'vitest'
import {
  capDescription,
  MAX_DESCRIPTION_CHARS,
  TRUNCATION_MARK,
} from '../../src/manifest/cap-description.js'

/** True when `text` holds no lone surrogate: UTF-8 round-trips it unchanged. */
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text

describe('capDescription (issue 10 item 18)', () => {
  it('is the spec limit, 1,024 characters', () => {
    expect(MAX_DESCRIPTION_CHARS).toBe(1024)
  })

  it('keeps a description within the limit as it is', () => {
    const exact = 'd'.repeat(1024)
    expect(capDescription(exact)).toBe(exact)
    expect(capDescription('Counts words.')).toBe('Counts words.')
  })

  it('cuts a longer one to at most 1,024 characters ending in a visible mark', () => {
    const long = 'word '.repeat(11_600)
    const out = capDescription(long)
    expect(out.length).toBeLessThanOrEqual(1024)
    expect(out.endsWith(TRUNCATION_MARK)).toBe(true)
    expect(long.startsWith(out.slice(0, -1))).toBe(true)
    expect(capDescription('x'.repeat(58_000))).toBe(`${'x'.repeat(1023)}${TRUNCATION_MARK}`)
  })

  it('never splits a surrogate pair at the boundary, whichever side the pair falls', () => {
    // Pairs at even offsets: the cut at 1,023 would leave a high surrogate behind.
    const even = capDescription('😀'.repeat(600))
    // Shifted by one: the cut at 1,023 falls between two pairs.
    const odd = capDescription(`x${'😀'.repeat(600)}`)
    for (const out of [even, odd]) {
      expect(out.length).toBeLessThanOrEqual(1024)
      expect(wellFormed(out)).toBe(true)
      expect(out.endsWith(`😀${TRUNCATION_MARK}`)).toBe(true)
    }
    expect(even).toBe(`${'😀'.repeat(511)}${TRUNCATION_MARK}`)
    expect(odd).toBe(`x${'😀'.repeat(511)}${TRUNCATION_MARK}`)
  })

  it('takes a smaller limit for display', () => {
    expect(capDescription('abcdef  ghij', 9)).toBe(`abcdef${TRUNCATION_MARK}`)
    expect(wellFormed(capDescription('🎉'.repeat(100), 160))).toBe(true)
  })
})
