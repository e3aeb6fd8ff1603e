/**
 * Display width of text in a terminal, and cutting text to a width, for the
 * CLI's tables. Text is taken in grapheme clusters (`Intl.Segmenter`), so a
 * cut never splits a surrogate pair, a base from its combining marks, or an
 * emoji sequence; an escape the CLI prints for a control character
 * (`\u001b`, `\n`, see `common/escape-text.ts`) is kept whole or cut whole.
 */

import { TRUNCATION_MARK } from '../../manifest/index.js'

// Made on first use: building ICU's segmenter costs about 13 ms, and a command that
// prints no table (`validate --json`, `serve`) never needs it.
let made: Intl.Segmenter | undefined
const segmenter = (): Intl.Segmenter =>
  (made ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }))

/** A control character as `escapeControls`/`escapeLine` shows it: one unit for cutting. */
const ESCAPE = /\\u[0-9a-f]{4}|\\n/y

/** Marks (variation selectors among them) and format characters: no width of their own. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u

/** Drawn two columns wide: emoji shown as pictures. */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u

/** East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth W and F). */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
}

function clusterWidth(cluster: string): number {
  if (EMOJI.test(cluster)) return 2
  if (ZERO_WIDTH.test(cluster)) return 0
  return isWide(cluster.codePointAt(0) ?? 0) ? 2 : 1
}

/** The units a cut may fall between: printed escapes whole, else grapheme clusters. */
function* units(text: string): Generator<string> {
  let plain = ''
  for (let i = 0; i < text.length; ) {
    ESCAPE.lastIndex = i
    const m = text[i] === '\\' ? ESCAPE.exec(text) : null
    if (m) {
      if (plain) yield* segments(plain)
      plain = ''
      yield m[0]
      i += m[0].length
    } else plain += text[i++]
  }
  if (plain) yield* segments(plain)
}

function* segments(text: string): Generator<string> {
  for (const { segment } of segmenter().segment(text)) yield segment
}

/**
 * Characters that each take one column and are each their own grapheme
 * cluster, whatever stands beside them: printable ASCII, Latin-1 and the
 * Latin extensions up to the spacing modifiers (not the soft hyphen, a format
 * character), and General Punctuation's dashes, quotes, bullets and ellipsis
 * (not its format characters, separators and bidi controls). Most of what a
 * listing prints (ids, paths, descriptions in European languages, typographic
 * quotes and dashes) is this, and segmenting it cost half of a 24,000-skill
 * list. `test/cli/text-width.test.ts` checks the claim against the segmenter.
 */
export const ONE_COLUMN = /^[\x20-\x7e\xa0-\xac\xae-\u02ff\u2010-\u2027\u2030-\u205e]*$/

/** How many terminal columns `text` takes (one line; wide characters count 2, marks 0). */
export function textWidth(text: string): number {
  if (ONE_COLUMN.test(text)) return text.length
  let width = 0
  for (const { segment } of segmenter().segment(text)) width += clusterWidth(segment)
  return width
}

/**
 * `text` cut to at most `width` columns, ending in `…` when cut, at a unit
 * boundary (see the file comment). Text that fits is returned as it is.
 */
export function cutToWidth(text: string, width: number): string {
  if (textWidth(text) <= width) return text
  if (width <= 0) return ''
  // Without printed escapes, every character here is a unit of one column.
  if (ONE_COLUMN.test(text) && !text.includes('\\'))
    return `${text.slice(0, width - 1).trimEnd()}${TRUNCATION_MARK}`
  let out = ''
  let used = 0
  for (const unit of units(text)) {
    const w = textWidth(unit)
    if (used + w > width - 1) break
    out += unit
    used += w
  }
  return `${out.trimEnd()}${TRUNCATION_MARK}`
}

/**
 * `text` cut to at most `width` columns by dropping its start, beginning with
 * `…` when cut (for paths, whose end says most), at a unit boundary.
 */
export function cutStartToWidth(text: string, width: number): string {
  if (textWidth(text) <= width) return text
  if (width <= 0) return ''
  if (ONE_COLUMN.test(text) && !text.includes('\\'))
    return `${TRUNCATION_MARK}${text.slice(text.length - (width - 1))}`
  const kept: string[] = []
  let used = 0
  for (const unit of [...units(text)].reverse()) {
    const w = textWidth(unit)
    if (used + w > width - 1) break
    kept.unshift(unit)
    used += w
  }
  return `${TRUNCATION_MARK}${kept.join('')}`
}

/** `text` padded with spaces to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - textWidth(text)))
}
