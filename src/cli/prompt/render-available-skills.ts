import { catalogCutNote, escapeXml } from '../../common/index.js'
import { capDescription, LIFECYCLE_TOOL, MAX_DESCRIPTION_CHARS } from '../../index.js'

/** One entry of the `<available_skills>` block. */
export interface AvailableSkillEntry {
  readonly name: string
  readonly description: string
  /** Path of the skill's SKILL.md. */
  readonly location: string
}

/** The rendered block and what was cut to fit. */
export interface RenderedAvailableSkills {
  readonly text: string
  readonly estimatedTokens: number
  readonly dropped: number
  readonly shortened: number
}

/** Characters per token used for estimates: a rough, tokenizer-free rule that overestimates English prose slightly. */
export const CHARS_PER_TOKEN = 4
/** Descriptions are never cut below this many characters: entries are dropped instead. */
export const SHORT_DESCRIPTION_CHARS = 160

/** Estimated tokens of `text`: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** Re-exported from its one home, common/escape-markup. */
export { escapeXml }

/** The note a cut block ends with, naming the manager's list tool: the one sentence the library uses. */
const moreSkillsNote = (hidden: number): string => catalogCutNote(hidden, LIFECYCLE_TOOL.list)

function entryText(e: AvailableSkillEntry, cap: number): string {
  return [
    '<skill>',
    `<name>${escapeXml(e.name)}</name>`,
    `<description>${escapeXml(capDescription(e.description, cap))}</description>`,
    `<location>${escapeXml(e.location)}</location>`,
    '</skill>',
  ].join('\n')
}

function render(items: readonly string[], hidden: number): string {
  const lines = ['<available_skills>', ...items]
  if (hidden > 0) lines.push(moreSkillsNote(hidden))
  lines.push('</available_skills>')
  return lines.join('\n')
}

/** Characters of `render(items, hidden)`, without building it. */
function renderedLength(itemLengths: readonly number[], kept: number, hidden: number): number {
  let length = '<available_skills>\n</available_skills>'.length
  for (let i = 0; i < kept; i++) length += itemLengths[i]! + 1
  if (hidden > 0) length += moreSkillsNote(hidden).length + 1
  return length
}

/**
 * Renders the `<available_skills>` block agents put in a system prompt. Every
 * description is capped at the spec's 1,024 characters. With `maxTokens` (the
 * estimate is characters / 4) the budget is used whole before anything is
 * cut: when every description fits, none is shortened; otherwise only the
 * longest are, to the largest common length that fits (never below 160
 * characters). Only when 160 does not fit are entries dropped from the end,
 * and then the block ends in a `<more_skills>` note saying how many are not
 * shown and that `list_skills` with a query finds them. The result is within
 * `maxTokens` unless not even the note fits.
 */
export function renderAvailableSkills(
  entries: readonly AvailableSkillEntry[],
  maxTokens?: number,
): RenderedAvailableSkills {
  const done = (items: readonly string[], hidden: number, shortened: number) => {
    const text = render(items, hidden)
    return { text, estimatedTokens: estimateTokens(text), dropped: hidden, shortened }
  }
  const whole = entries.map((e) => entryText(e, MAX_DESCRIPTION_CHARS))
  if (maxTokens === undefined) return done(whole, 0, 0)
  const budget = maxTokens * CHARS_PER_TOKEN
  const lengthsAt = (cap: number) => entries.map((e) => entryText(e, cap).length)
  const fitsAt = (cap: number) => renderedLength(lengthsAt(cap), entries.length, 0) <= budget
  const cut = (cap: number) => entries.filter((e) => e.description.length > cap).length
  if (
    renderedLength(
      whole.map((t) => t.length),
      entries.length,
      0,
    ) <= budget
  ) {
    return done(whole, 0, 0)
  }
  if (fitsAt(SHORT_DESCRIPTION_CHARS)) {
    // The largest cap that fits: a shorter cap never makes the block longer.
    let lo = SHORT_DESCRIPTION_CHARS
    let hi = MAX_DESCRIPTION_CHARS
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2)
      if (fitsAt(mid)) lo = mid
      else hi = mid - 1
    }
    return done(
      entries.map((e) => entryText(e, lo)),
      0,
      cut(lo),
    )
  }
  const short = entries.map((e) => entryText(e, SHORT_DESCRIPTION_CHARS))
  const lengths = short.map((t) => t.length)
  let kept = short.length
  let length = renderedLength(lengths, kept, 0)
  // Each drop removes one whole entry and resizes the note; tracked incrementally to stay linear.
  const noteLength = (hidden: number) => (hidden > 0 ? moreSkillsNote(hidden).length + 1 : 0)
  while (kept > 0 && length > budget) {
    kept--
    length +=
      -(lengths[kept]! + 1) -
      noteLength(entries.length - kept - 1) +
      noteLength(entries.length - kept)
  }
  return done(
    short.slice(0, kept),
    entries.length - kept,
    entries.slice(0, kept).filter((e) => e.description.length > SHORT_DESCRIPTION_CHARS).length,
  )
}
