import { MAX_DESCRIPTION_CHARS } from '../manifest/cap-description.js'
import { type CatalogCut, moreSkillsNote } from './lifecycle-tool-names.js'

/** Descriptions shortened evenly are never cut below this many characters: skills go to names only instead. */
export const SHORT_DESCRIPTION_CHARS = 160

/** One skill as the layout measures it, in rank order. */
export interface LayoutSkill {
  /** Its `<skill>` element with the description cut to `cap` characters (no line break after it). */
  row(cap: number): string
  /** Its line in the names-only list. */
  readonly nameLine: string
  /** The deployer pinned it: it ranks first and keeps a description whatever the flood. */
  readonly pinned: boolean
  /** The model used it in this session: in a flood it keeps a description within half the budget. */
  readonly used: boolean
}

/**
 * Which skills a block shows and how, in rank order: the first `described`
 * with their descriptions cut to `cap`, the next `namesOnly` by name, the
 * rest not at all.
 */
export interface CatalogLayout {
  readonly described: number
  readonly cap: number
  readonly namesOnly: number
}

/** The lines of the block around and between the rows; one list, so measuring and writing agree. */
export const BLOCK = Object.freeze({
  open: '<available_skills>',
  close: '</available_skills>',
  namesOpen: '<skill_names>',
  namesClose: '</skill_names>',
})

/** The closing line's counts for `layout`, or undefined when nothing is cut. */
export function layoutCut(layout: CatalogLayout, total: number): CatalogCut | undefined {
  const notShown = Math.max(0, total - layout.described - layout.namesOnly)
  if (notShown === 0 && layout.namesOnly === 0) return undefined
  return { total, notShown, namesOnly: layout.namesOnly }
}

/** The block's lines for `layout` (joined with `\n`, they are the block). */
export function layoutLines(
  skills: readonly LayoutSkill[],
  layout: CatalogLayout,
  total: number,
): string[] {
  const lines: string[] = [BLOCK.open]
  for (let i = 0; i < layout.described; i++) lines.push(skills[i]!.row(layout.cap))
  if (layout.namesOnly > 0) {
    lines.push(BLOCK.namesOpen)
    const end = layout.described + layout.namesOnly
    for (let i = layout.described; i < end; i++) lines.push(skills[i]!.nameLine)
    lines.push(BLOCK.namesClose)
  }
  const cut = layoutCut(layout, total)
  if (cut) lines.push(moreSkillsNote(cut))
  lines.push(BLOCK.close)
  return lines
}

/**
 * Measures layouts of `skills` without building them: row lengths at the
 * short cap and name lines are summed once (prefix sums), so trying a
 * layout costs O(1) unless it asks for another cap.
 */
class Measure {
  readonly #skills: readonly LayoutSkill[]
  readonly #total: number
  readonly #shortRows: number[] = [0]
  readonly #names: number[] = [0]

  constructor(skills: readonly LayoutSkill[], total: number) {
    this.#skills = skills
    this.#total = total
    for (const s of skills) {
      this.#shortRows.push(this.#shortRows.at(-1)! + s.row(SHORT_DESCRIPTION_CHARS).length + 1)
      this.#names.push(this.#names.at(-1)! + s.nameLine.length + 1)
    }
  }

  /** Characters of `layoutLines(skills, layout, total).join('\n')`. */
  length(layout: CatalogLayout): number {
    const { described: k, cap, namesOnly: m } = layout
    let length = BLOCK.open.length + 1 + BLOCK.close.length
    if (cap === SHORT_DESCRIPTION_CHARS) length += this.#shortRows[k]!
    else for (let i = 0; i < k; i++) length += this.#skills[i]!.row(cap).length + 1
    if (m > 0)
      length +=
        BLOCK.namesOpen.length + BLOCK.namesClose.length + 2 + this.#names[k + m]! - this.#names[k]!
    const cut = layoutCut(layout, this.#total)
    if (cut) length += moreSkillsNote(cut).length + 1
    return length
  }
}

/** The largest whole number in [lo, hi] for which `fits` holds, given that it holds at lo (binary search). */
function largest(lo: number, hi: number, fits: (x: number) => boolean): number {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (fits(mid)) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * How many of the first skills keep a description when not even every name
 * fits: the pinned (all that fit the budget), then those used in this session
 * (ranked next) while the block stays within half the budget, so the rest
 * still has room to be named.
 */
function keptDescribed(skills: readonly LayoutSkill[], measure: Measure, budget: number): number {
  const described = (k: number) =>
    measure.length({ described: k, cap: SHORT_DESCRIPTION_CHARS, namesOnly: 0 })
  if (described(0) > budget) return 0
  const pinned = skills.filter((s) => s.pinned).length
  const used = pinned + skills.slice(pinned).filter((s) => s.used).length
  const keep = largest(0, pinned, (k) => described(k) <= budget)
  if (keep < pinned || described(keep) > budget / 2) return keep
  return largest(keep, used, (k) => described(k) <= budget / 2)
}

/**
 * The layout of `skills` (ranked) within `budget` characters, in the
 * overflow steps the model can see: every description whole; else every
 * description cut to the largest common length that fits (down to 160
 * characters: only the longest are cut); else the first skills described
 * and the rest by name only, as many described as fit (the pinned first);
 * else the pinned and the most used described (`keptDescribed`) and as many
 * others by name as fit, the rest counted in the closing line. Then the
 * described ones get the longest common cap that still fits. Undefined
 * `budget`: everything whole.
 * The result fits unless not even the pinned skills' short rows and the
 * closing line do (then they are cut to what fits, down to the bare note).
 */
export function fitCatalog(
  skills: readonly LayoutSkill[],
  total: number,
  budget: number | undefined,
): CatalogLayout {
  const n = skills.length
  const whole: CatalogLayout = { described: n, cap: MAX_DESCRIPTION_CHARS, namesOnly: 0 }
  if (budget === undefined) return whole
  const measure = new Measure(skills, total)
  const fits = (layout: CatalogLayout) => measure.length(layout) <= budget
  if (fits(whole)) return whole
  const short = (described: number, namesOnly: number): CatalogLayout => ({
    described,
    cap: SHORT_DESCRIPTION_CHARS,
    namesOnly,
  })
  let layout: CatalogLayout
  const keep = keptDescribed(skills, measure, budget)
  if (fits(short(n, 0))) layout = short(n, 0)
  else if (fits(short(keep, n - keep))) {
    const k = largest(keep, n - 1, (d) => fits(short(d, n - d)))
    layout = short(k, n - k)
  } else
    layout = short(
      keep,
      largest(0, n - keep, (m) => fits(short(keep, m))),
    )
  const { described, namesOnly } = layout
  const cap = largest(SHORT_DESCRIPTION_CHARS, MAX_DESCRIPTION_CHARS, (c) =>
    fits({ described, cap: c, namesOnly }),
  )
  return { described, cap, namesOnly }
}
