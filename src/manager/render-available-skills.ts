import { escapeXml } from '../common/escape-markup.js'
import { capDescription, MAX_DESCRIPTION_CHARS } from '../manifest/cap-description.js'
import { moreSkillsNote } from './lifecycle-tool-names.js'

/** One skill of the `<available_skills>` block. */
export interface AvailableSkill {
  /** What the model names the skill by: the id `load_skill` takes, or the SKILL.md name. */
  readonly name: string
  readonly description: string
  /**
   * The SKILL.md path, for an agent that reads skills from the file system
   * itself. Leave it out when the model loads skills through `load_skill`: a
   * host path is then of no use to it, and stays on the host.
   */
  readonly location?: string
}

/** Options for `renderAvailableSkills`. */
export interface RenderAvailableSkillsOptions {
  /**
   * Fit the block into about this many tokens (`estimateTokens`): the
   * longest descriptions are shortened first, then skills dropped from the end.
   */
  readonly maxTokens?: number
  /**
   * How many skills the given ones were cut from (e.g. `CatalogPage.total`):
   * those not given are counted in the `<more_skills>` note.
   */
  readonly total?: number
}

/** The rendered block and what was cut to fit. */
export interface RenderedAvailableSkills {
  readonly text: string
  readonly estimatedTokens: number
  /** Skills given but left out to fit `maxTokens`. */
  readonly dropped: number
  /** Skills shown with a description shortened to fit `maxTokens`. */
  readonly shortened: number
}

/** Characters per token used for estimates: a rough, tokenizer-free rule that overestimates English prose slightly. */
export const CHARS_PER_TOKEN = 4
/** Descriptions are never cut below this many characters: entries are dropped instead. */
export const SHORT_DESCRIPTION_CHARS = 160

/** Estimated tokens of `text`: ceil(characters / 4). For budgeting and display only. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

function entryText(e: AvailableSkill, cap: number): string {
  return [
    '<skill>',
    `<name>${escapeXml(e.name)}</name>`,
    `<description>${escapeXml(capDescription(e.description, cap))}</description>`,
    ...(e.location === undefined ? [] : [`<location>${escapeXml(e.location)}</location>`]),
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
 * The one renderer of the `<available_skills>` block agents put in a system
 * prompt, in the agentskills.io integration format: one `<skill>` with
 * `<name>`, `<description>` and (when given) `<location>` per skill, in the
 * order given, every text XML-escaped and every description capped at the
 * spec's 1,024 characters. When `total` says more skills exist than were
 * given, or skills were dropped to fit, the block ends in a `<more_skills>`
 * note saying how many are not shown and that `list_skills` with a query
 * finds them, so no catalog is cut silently.
 *
 * With `maxTokens` the budget is used whole before anything is cut: when
 * every description fits, none is shortened; otherwise only the longest are,
 * to the largest common length that fits (never below 160 characters). Only
 * when 160 does not fit are skills dropped from the end. The result is within
 * `maxTokens` unless not even the note fits.
 */
export function renderAvailableSkills(
  skills: readonly AvailableSkill[],
  options: RenderAvailableSkillsOptions = {},
): RenderedAvailableSkills {
  const { maxTokens } = options
  const notGiven = Math.max(0, (options.total ?? 0) - skills.length)
  const done = (items: readonly string[], dropped: number, shortened: number) => {
    const text = render(items, notGiven + dropped)
    return { text, estimatedTokens: estimateTokens(text), dropped, shortened }
  }
  const whole = skills.map((e) => entryText(e, MAX_DESCRIPTION_CHARS))
  if (maxTokens === undefined) return done(whole, 0, 0)
  const budget = maxTokens * CHARS_PER_TOKEN
  const lengthsAt = (cap: number) => skills.map((e) => entryText(e, cap).length)
  const fitsAt = (cap: number) => renderedLength(lengthsAt(cap), skills.length, notGiven) <= budget
  const cut = (cap: number) => skills.filter((e) => e.description.length > cap).length
  const wholeLengths = whole.map((t) => t.length)
  if (renderedLength(wholeLengths, skills.length, notGiven) <= budget) return done(whole, 0, 0)
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
      skills.map((e) => entryText(e, lo)),
      0,
      cut(lo),
    )
  }
  const short = skills.map((e) => entryText(e, SHORT_DESCRIPTION_CHARS))
  const lengths = short.map((t) => t.length)
  let kept = short.length
  let length = renderedLength(lengths, kept, notGiven)
  // Each drop removes one whole entry and resizes the note; tracked incrementally to stay linear.
  const noteLength = (hidden: number) => (hidden > 0 ? moreSkillsNote(hidden).length + 1 : 0)
  while (kept > 0 && length > budget) {
    kept--
    const hidden = notGiven + skills.length - kept
    length += -(lengths[kept]! + 1) - noteLength(hidden - 1) + noteLength(hidden)
  }
  return done(
    short.slice(0, kept),
    skills.length - kept,
    skills.slice(0, kept).filter((e) => e.description.length > SHORT_DESCRIPTION_CHARS).length,
  )
}
