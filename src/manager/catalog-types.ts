import type { SkillPin } from '../sources/lock/skill-pins.js'
import type { SkillProblem } from '../sources/types.js'

/** One catalog row. A shadowed row names the source whose skill of the same id wins. */
export interface CatalogEntry {
  readonly id: string
  /**
   * What `load_skill` (and `manager.load`) takes to load this very row: the
   * plain id for the winner; for a shadowed copy, its qualified ref
   * (`source:copy-key`, e.g. `filesystem:2/vendor/excel-automation`: the
   * source id, then the root number and folder path relative to that root;
   * see docs/authoring.md). Absent only on a shadowed row whose ref would
   * pass `MAX_SKILL_REF_LENGTH` characters (or whose source serves its id
   * twice without copy keys): no ref reaches it.
   */
  readonly ref?: string
  readonly name: string
  /**
   * At most 1,024 characters (`MAX_DESCRIPTION_CHARS`, the spec's limit): a
   * longer description is cut on a code-point boundary and ends in `…`. Search
   * still matches the whole text.
   */
  readonly description: string
  readonly version: string
  readonly source: string
  readonly loaded: boolean
  readonly loadedVersion?: string
  readonly shadowedBy?: string
  readonly updateAvailable?: boolean
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  readonly warnings?: readonly string[]
  /** Host-side only (e.g. the SKILL.md path); never in model-facing output. */
  readonly location?: string
  /** The skill is for the host to load only: model-facing catalogs (`forModel`) leave it out. */
  readonly disableModelInvocation?: true
  /** With a lockfile in force: pinned, or changed since pinned (then loading it fails `E_SKILL_NOT_PINNED`). */
  readonly pin?: SkillPin
}

/** A catalog query: substring match over id, name and description, paged by offset. */
export interface CatalogSearch {
  readonly query?: string
  readonly offset?: number
  readonly limit?: number
  /**
   * The model's view: only skills the model can load, i.e. rows not marked
   * `disableModelInvocation`; shadowed copies (each loaded by its `ref`) only
   * when `query` is given, after the winners (`counts.shadowed` counts them
   * either way). Applies to the page and to `total`. Default false: the host
   * sees every row.
   */
  readonly forModel?: boolean
}

/** The catalog's counters; each counts one thing, over the whole catalog. */
export interface CatalogCounts {
  /** Skills a source could not serve (problems of severity `error`). Warnings never count here. */
  readonly skipped: number
  /** Served skills (winners and shadowed rows) whose validation raised warnings. */
  readonly withWarnings: number
  /** Shadowed copies: rows of a later source with a taken id, and a source's own later folders of a taken id. */
  readonly shadowed: number
}

/** One page of a catalog search, with the catalog's health alongside. */
export interface CatalogPage {
  readonly entries: readonly CatalogEntry[]
  readonly total: number
  /** Every problem discovery reported, errors and warnings; `counts` says how many of what. */
  readonly skipped: SkillCatalog['skipped']
  readonly counts: CatalogCounts
  readonly sourceErrors: readonly SourceError[]
}

/** A source that failed discovery. The other sources keep serving. */
export interface SourceError {
  readonly source: string
  readonly code: string
  readonly message: string
}

/** What the catalog knows: winners and shadowed rows, skipped skills and failed sources. */
export interface SkillCatalog {
  readonly entries: readonly CatalogEntry[]
  readonly skipped: readonly (SkillProblem & { readonly source: string })[]
  readonly sourceErrors: readonly SourceError[]
}
