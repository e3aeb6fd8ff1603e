import { SkillHostError } from '../common/errors.js'
import { assertCatalogBudget, type CatalogBudget } from './catalog-budget.js'
import type { CatalogEntry } from './catalog-types.js'
import {
  type AvailableSkill,
  type CatalogPatterns,
  type RenderedAvailableSkills,
  renderAvailableSkills,
} from './render-available-skills.js'
import { idPatternMatcher } from './skill-id-patterns.js'

/**
 * Whether `<available_skills>` rows carry the SKILL.md path: `'none'` (the
 * default; the model loads by id through `load_skill`, and a host path is of
 * no use to it) or `'path'` (for an agent that reads skills by path itself).
 */
export type CatalogLocations = 'path' | 'none'

/** The manager's `catalog` setting: the model's catalog block, as the deployer shapes it. */
export interface ModelCatalogOptions extends CatalogBudget, CatalogPatterns {
  readonly locations?: CatalogLocations
}

/** Options for `SkillManager.availableSkills`: a budget and locations for this call, over the configured ones. */
export interface AvailableSkillsOptions extends CatalogBudget {
  readonly locations?: CatalogLocations
}

/** Where the model-facing rows come from: the rows, and a token that changes whenever they may have. */
export interface ModelCatalogRows {
  /** The discovery snapshot, say: the same token means the same rows. */
  token(): unknown
  /** The winners the model may see (`search({ forModel: true })`), in any order. */
  entries(): readonly CatalogEntry[]
}

/** One rendering, kept while the skills it shows and the options it had stay the same. */
interface Rendered {
  readonly fingerprint: string
  readonly result: RenderedAvailableSkills
  /** The snapshot of model-facing rows it was last checked against. */
  rows: unknown
}

/** Renderings kept, one per distinct options: a host asks with one or two budgets. */
const MAX_KEPT = 8

/**
 * Checks the manager's `catalog` setting (`E_INVALID_SKILLS_CONFIG`): the
 * budget by the one budget rule, the patterns by the one pattern rule.
 */
export function checkModelCatalogOptions(options: ModelCatalogOptions | undefined): void {
  if (options === undefined) return
  assertCatalogBudget(options, 'catalog')
  idPatternMatcher(options.pin, 'catalog.pin')
  idPatternMatcher(options.hide, 'catalog.hide')
  checkLocations(options.locations, 'catalog')
}

/** `E_INVALID_SKILLS_CONFIG` unless `locations` is absent, `'path'` or `'none'`. */
function checkLocations(locations: unknown, where: string): void {
  if (locations === undefined || locations === 'path' || locations === 'none') return
  throw new SkillHostError(
    'E_INVALID_SKILLS_CONFIG',
    `${where}.locations must be 'path' or 'none'.`,
  )
}

/**
 * A manager's `<available_skills>` block, stable across turns: it is
 * rendered again only when the skills the model may see change (ids,
 * versions, paths), never because a skill was loaded, unloaded or used.
 * Use in this session ranks skills (after the deployer's pins) at the
 * moment the block is rendered again for such a change, so a session's
 * catalog bytes stay identical turn after turn, and prompt caches hold.
 */
export class ModelCatalog {
  readonly #config: ModelCatalogOptions
  readonly #rows: ModelCatalogRows
  readonly #uses = new Map<string, number>()
  readonly #kept = new Map<string, Rendered>()

  constructor(config: ModelCatalogOptions | undefined, rows: ModelCatalogRows) {
    this.#config = config ?? {}
    this.#rows = rows
    this.hidden = idPatternMatcher(this.#config.hide, 'catalog.hide')
  }

  /** Whether the deployer hid `id` from the model's catalog (`catalog.hide`): list_skills leaves it out too. */
  readonly hidden: (id: string) => boolean

  /** Counts one use of `id` (a load), for the next rendering's rank. */
  used(id: string): void {
    this.#uses.set(id, (this.#uses.get(id) ?? 0) + 1)
  }

  /** The block under the configured setting, `options` overriding its budget and locations. */
  render(options: AvailableSkillsOptions = {}): RenderedAvailableSkills {
    checkLocations(options.locations, 'availableSkills options')
    const { window, share, maxTokens } =
      options.window !== undefined || options.share !== undefined || options.maxTokens !== undefined
        ? options
        : this.#config
    assertCatalogBudget({ window, share, maxTokens }, 'availableSkills options')
    const withPaths = (options.locations ?? this.#config.locations) === 'path'
    const key = JSON.stringify([window, share, maxTokens, withPaths])
    const token = this.#rows.token()
    const kept = this.#kept.get(key)
    if (kept !== undefined && kept.rows === token) return kept.result
    const entries = this.#rows.entries()
    const fingerprint = entries
      .map((e) => `${e.id}\0${e.version}${withPaths ? `\0${e.location ?? ''}` : ''}`)
      .join('\n')
    if (kept !== undefined && kept.fingerprint === fingerprint) {
      kept.rows = token
      return kept.result
    }
    const skills = entries.map(
      (e): AvailableSkill => ({
        name: e.id,
        description: e.description,
        ...(withPaths && e.location !== undefined && { location: e.location }),
        ...(this.#uses.has(e.id) && { uses: this.#uses.get(e.id) }),
      }),
    )
    const result = renderAvailableSkills(skills, {
      ...(window !== undefined && { window }),
      ...(share !== undefined && { share }),
      ...(maxTokens !== undefined && { maxTokens }),
      ...(this.#config.pin && { pin: this.#config.pin }),
    })
    this.#kept.delete(key)
    if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!)
    this.#kept.set(key, { fingerprint, result, rows: token })
    return result
  }
}
