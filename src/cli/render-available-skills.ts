import { escapeXml } from '../common/escape-markup.js'
import { capDescription } from '../manifest/cap-description.js'

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
/** Descriptions are cut to this many characters before any entry is dropped. */
export const SHORT_DESCRIPTION_CHARS = 160

/** Estimated tokens of `text`: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** Re-exported from its one home, common/escape-markup. */
export { escapeXml }

function render(entries: readonly AvailableSkillEntry[]): string {
  const lines = ['<available_skills>']
  for (const e of entries) {
    lines.push(
      '<skill>',
      `<name>${escapeXml(e.name)}</name>`,
      `<description>${escapeXml(capDescription(e.description))}</description>`,
      `<location>${escapeXml(e.location)}</location>`,
      '</skill>',
    )
  }
  lines.push('</available_skills>')
  return lines.join('\n')
}

/**
 * Renders the `<available_skills>` block agents put in a system prompt. Every
 * description is capped at the spec's 1,024 characters. With `maxTokens`, descriptions longer than 160 characters are shortened first,
 * then entries are dropped from the end until the estimate (characters / 4)
 * fits; the result says how many were shortened and dropped.
 */
export function renderAvailableSkills(
  entries: readonly AvailableSkillEntry[],
  maxTokens?: number,
): RenderedAvailableSkills {
  let text = render(entries)
  if (maxTokens === undefined || estimateTokens(text) <= maxTokens) {
    return { text, estimatedTokens: estimateTokens(text), dropped: 0, shortened: 0 }
  }
  let shortened = 0
  const short = entries.map((e) => {
    if (e.description.length <= SHORT_DESCRIPTION_CHARS) return e
    shortened++
    return { ...e, description: capDescription(e.description, SHORT_DESCRIPTION_CHARS) }
  })
  let kept = short.length
  text = render(short)
  // Each drop removes a whole entry; recomputing lengths incrementally keeps this linear.
  let length = text.length
  while (kept > 0 && Math.ceil(length / CHARS_PER_TOKEN) > maxTokens) {
    kept--
    length -= render([short[kept]!]).length - render([]).length
  }
  text = render(short.slice(0, kept))
  return { text, estimatedTokens: estimateTokens(text), dropped: entries.length - kept, shortened }
}
