import { escapeXml } from '../common/escape-markup.js'
import { escapeLine } from '../common/escape-text.js'
import { capDescription, MAX_DESCRIPTION_CHARS } from '../manifest/cap-description.js'
import { type CatalogBudget, CHARS_PER_TOKEN, catalogBudgetChars } from './catalog-budget.js'
import {
  fitCatalog,
  type LayoutSkill,
  layoutCut,
  layoutLines,
  SHORT_DESCRIPTION_CHARS,
} from './catalog-layout.js'
import { idPatternMatcher } from './skill-id-patterns.js'

export { CHARS_PER_TOKEN, SHORT_DESCRIPTION_CHARS }

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
  /** What `pin` and `hide` patterns match: the skill's id. Default `name`. */
  readonly id?: string
  /** Times the model used it in this session: more ranks earlier, after the pinned. */
  readonly uses?: number
}

/** The deployer's say over which skills the block describes: id patterns (`*`, `?` wildcards). */
export interface CatalogPatterns {
  /** Skills always described: they rank first, so they are the last to lose their description. */
  readonly pin?: readonly string[]
  /** Skills never in the block (nor counted in it); a host that serves `load_skill` still loads them by id. */
  readonly hide?: readonly string[]
}

/** Options for `renderAvailableSkills`: a budget (`window` and `share`, or `maxTokens`), pins, hides and a total. */
export interface RenderAvailableSkillsOptions extends CatalogBudget, CatalogPatterns {
  /**
   * How many skills the given ones were cut from (e.g. `CatalogPage.total`):
   * those not given are counted as not shown in the closing line.
   */
  readonly total?: number
}

/** The rendered block and what was cut to fit. */
export interface RenderedAvailableSkills {
  readonly text: string
  readonly estimatedTokens: number
  /** The characters the budget allowed; absent without a budget. */
  readonly budgetChars?: number
  /** Skills in all: the distinct names given, or `total` when larger. */
  readonly total: number
  /** Skills shown with a description. */
  readonly described: number
  /** Of those, how many have a description shortened to fit. */
  readonly shortened: number
  /** Skills shown by name only. */
  readonly namesOnly: number
  /** Skills given but not named at all to fit the budget. */
  readonly dropped: number
  /** Skills not named at all: `dropped` plus the skills `total` says were not given. */
  readonly notShown: number
}

/** Estimated tokens of `text`: ceil(characters / 4). For budgeting and display only. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** A name as the block shows it: escaped, on one line, never cut. */
const nameText = (name: string): string => escapeXml(escapeLine(name))

function row(skill: AvailableSkill, cap: number): string {
  return [
    '<skill>',
    `<name>${nameText(skill.name)}</name>`,
    `<description>${escapeXml(capDescription(skill.description, cap))}</description>`,
    ...(skill.location === undefined ? [] : [`<location>${escapeXml(skill.location)}</location>`]),
    '</skill>',
  ].join('\n')
}

/** Code-unit order: the same on every machine and locale. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** A skill to rank, with whether a `pin` pattern matched it. */
interface Ranked {
  readonly skill: AvailableSkill
  readonly pinned: boolean
}

/**
 * `skills` in catalog rank: pinned first, then by use in this session (most
 * first), then by name; one entry per name (the first in rank), so no skill
 * is named twice. The order given does not matter: the same skills give the
 * same bytes.
 */
function rank(skills: readonly Ranked[]): Ranked[] {
  const ranked = [...skills].sort(
    ({ skill: a, pinned: pa }, { skill: b, pinned: pb }) =>
      Number(pb) - Number(pa) ||
      (b.uses ?? 0) - (a.uses ?? 0) ||
      byCodeUnits(a.name, b.name) ||
      byCodeUnits(a.description, b.description),
  )
  const seen = new Set<string>()
  return ranked.filter(({ skill }) => !seen.has(skill.name) && seen.add(skill.name))
}

/**
 * The one renderer of the `<available_skills>` block agents put in a system
 * prompt, in the agentskills.io integration format: one `<skill>` with
 * `<name>`, `<description>` and (when given) `<location>` per skill, every
 * text XML-escaped, every description capped at the spec's 1,024 characters.
 * Skills matching a `hide` pattern are left out; the rest are ranked
 * (pinned, then most used, then by name; one entry per name), so the bytes
 * depend on the skills only, never on the order they came in.
 *
 * Within a budget (`window` × `share` × 4 characters, or `maxTokens` × 4;
 * `catalogBudgetChars`) it overflows in steps the model can see: every
 * description whole; else descriptions shortened evenly (the longest cut to
 * the largest common length that fits, never below 160 characters); else the
 * lowest-ranked skills by name only, in a `<skill_names>` list; else, past
 * what even names fit, skills not shown. Whenever a skill is not shown or
 * shown by name only, the block ends in a `<more_skills>` line with the total,
 * how many are not shown, how many by name only, and that `list_skills` with
 * a query finds them. A name is never cut. The text stays within the budget
 * unless not even that closing line fits.
 */
export function renderAvailableSkills(
  skills: readonly AvailableSkill[],
  options: RenderAvailableSkillsOptions = {},
): RenderedAvailableSkills {
  const budgetChars = catalogBudgetChars(options, 'renderAvailableSkills options')
  const hidden = idPatternMatcher(options.hide, 'hide')
  const pins = idPatternMatcher(options.pin, 'pin')
  const ranked = rank(
    skills
      .filter((skill) => !hidden(skill.id ?? skill.name))
      .map((skill) => ({ skill, pinned: pins(skill.id ?? skill.name) })),
  )
  const total = Math.max(options.total ?? 0, ranked.length)
  const items: LayoutSkill[] = ranked.map(({ skill, pinned }) => ({
    row: (cap) => row(skill, cap),
    nameLine: nameText(skill.name),
    pinned,
    used: (skill.uses ?? 0) > 0,
  }))
  const layout = fitCatalog(items, total, budgetChars)
  const text = layoutLines(items, layout, total).join('\n')
  const cut = layoutCut(layout, total)
  return {
    text,
    estimatedTokens: estimateTokens(text),
    ...(budgetChars === undefined ? {} : { budgetChars }),
    total,
    described: layout.described,
    // Cut to fit the budget; the spec's own 1,024-character cap is not a cut made here.
    shortened:
      layout.cap < MAX_DESCRIPTION_CHARS
        ? ranked
            .slice(0, layout.described)
            .filter(({ skill }) => skill.description.length > layout.cap).length
        : 0,
    namesOnly: layout.namesOnly,
    dropped: ranked.length - layout.described - layout.namesOnly,
    notShown: cut?.notShown ?? 0,
  }
}
