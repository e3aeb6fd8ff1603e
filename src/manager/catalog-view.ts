import {
  type CatalogSkill,
  catalogEntry,
  type DiscoverySnapshot,
  type ShadowedSkill,
} from './catalog.js'
import type {
  CatalogCounts,
  CatalogEntry,
  CatalogPage,
  CatalogSearch,
  RefreshOutcome,
  SkillCatalog,
} from './types.js'

const counted = new WeakMap<DiscoverySnapshot, CatalogCounts>()

/**
 * The catalog's three counters, each counting one thing: skills skipped
 * (error problems: not served), served skills carrying warnings, and
 * shadowed copies (a later source's rows and a source's own shadowed
 * folders). Computed once per snapshot.
 */
export function catalogCounts(snapshot: DiscoverySnapshot): CatalogCounts {
  let counts = counted.get(snapshot)
  if (counts) return counts
  let skipped = 0
  let shadowed = snapshot.shadowed.length
  // A copy a source shadowed itself is one row and one problem: counted once.
  const listed = new Set(snapshot.shadowed.map((row) => row.skill))
  for (const p of snapshot.skipped) {
    if (p.severity === 'error') skipped += 1
    else if (
      p.code === 'E_SKILL_SHADOWED' &&
      (p.shadowedCopy === undefined || !listed.has(p.shadowedCopy))
    )
      shadowed += 1
  }
  let withWarnings = 0
  for (const row of snapshot.winners.values()) if (row.skill.warnings?.length) withWarnings += 1
  for (const row of snapshot.shadowed) if (row.skill.warnings?.length) withWarnings += 1
  counts = Object.freeze({ skipped, withWarnings, shadowed })
  counted.set(snapshot, counts)
  return counts
}

/** The version a record loaded under `ref` (a plain id or a qualified ref) holds, or undefined. */
export type LoadedVersionOf = (ref: string) => string | undefined

/** The version loaded from a shadowed row: only a copy loaded by its own ref counts. */
const shadowedLoaded = (row: ShadowedSkill, loadedVersionOf: LoadedVersionOf) =>
  row.qualified === undefined ? undefined : loadedVersionOf(row.qualified)

/**
 * The row a ref names in `snapshot`: the winner of a plain id, or the row a
 * qualified ref indexes.
 */
export function rowOf(snapshot: DiscoverySnapshot, ref: string): CatalogSkill | undefined {
  return snapshot.winners.get(ref) ?? snapshot.copies.get(ref)
}

/** All catalog rows: winners first (with their loaded state), then shadowed rows. */
export function buildCatalog(
  snapshot: DiscoverySnapshot,
  loadedVersionOf: LoadedVersionOf,
): SkillCatalog {
  const entries = [...snapshot.winners.values()].map((row) =>
    catalogEntry(row, loadedVersionOf(row.skill.id)),
  )
  for (const row of snapshot.shadowed)
    entries.push(catalogEntry(row, shadowedLoaded(row, loadedVersionOf), row.shadowedBy))
  return { entries, skipped: snapshot.skipped, sourceErrors: snapshot.sourceErrors }
}

/**
 * A case-insensitive substring query over the precomputed search text of each
 * row, paged by offset. The model's view (`forModel`) leaves out skills for
 * the host only and those the deployer hid (`hiddenFromModel`, `catalog.hide`). Rows are built only for the page returned, which is
 * what keeps a query over 10,000 skills in the low milliseconds.
 */
export function searchCatalog(
  snapshot: DiscoverySnapshot,
  loadedVersionOf: LoadedVersionOf,
  options: CatalogSearch,
  hiddenFromModel: (id: string) => boolean = () => false,
): CatalogPage {
  const needle = options.query?.trim().toLowerCase() ?? ''
  const offset = Math.max(0, Math.floor(options.offset ?? 0))
  const limit = Math.max(0, Math.floor(options.limit ?? Number.POSITIVE_INFINITY))
  const page: CatalogEntry[] = []
  let total = 0
  const forModel = options.forModel === true
  const consider = (row: CatalogSkill, loaded: string | undefined, shadowedBy?: string): void => {
    if (total >= offset && page.length < limit) page.push(catalogEntry(row, loaded, shadowedBy))
    total += 1
  }
  for (const row of snapshot.winners.values()) {
    if (forModel && (row.skill.disableModelInvocation === true || hiddenFromModel(row.skill.id)))
      continue
    if (needle && !row.haystack.includes(needle)) continue
    consider(row, loadedVersionOf(row.skill.id))
  }
  // The model sees shadowed copies it can load (a ref reaches them) only when it asks with a query.
  if (!forModel || needle !== '') {
    for (const row of snapshot.shadowed) {
      if (
        forModel &&
        (row.qualified === undefined ||
          row.skill.disableModelInvocation === true ||
          hiddenFromModel(row.skill.id))
      )
        continue
      if (needle && !row.haystack.includes(needle)) continue
      consider(row, shadowedLoaded(row, loadedVersionOf), row.shadowedBy)
    }
  }
  return {
    entries: page,
    total,
    skipped: snapshot.skipped,
    counts: catalogCounts(snapshot),
    sourceErrors: snapshot.sourceErrors,
  }
}

/** A loaded record as a refresh compares it: its id, the ref it was loaded by, its version. */
export interface LoadedRef {
  readonly id: string
  /** The plain id for a winner, the qualified ref for a copy loaded by it. */
  readonly ref: string
  readonly version: string
}

/** Which ids a refresh covered, and which loaded records now lag the row their ref names. */
export function summarizeRefresh(
  snapshot: DiscoverySnapshot,
  records: Iterable<LoadedRef>,
  id?: string,
): { refreshed: string[]; updatesAvailable: string[] } {
  const winners = snapshot.winners
  const refreshed = id === undefined ? [...winners.keys()] : winners.has(id) ? [id] : []
  const updatesAvailable: string[] = []
  for (const r of records) {
    if (id !== undefined && r.id !== id) continue
    const row = rowOf(snapshot, r.ref)
    if (row && row.skill.version !== r.version) updatesAvailable.push(r.id)
  }
  return { refreshed, updatesAvailable }
}

/** Why a loaded skill's new version was not taken: what a failed prepare threw. */
export interface RefreshFailure {
  readonly code: string
  readonly message: string
}

/**
 * The discovery problem that kept `id`'s new version out of `after`: one
 * naming the id, or one reported for the folder the loaded version came from.
 */
function skippedProblem(
  before: DiscoverySnapshot,
  after: DiscoverySnapshot,
  { id, ref }: LoadedRef,
): { code: string } | undefined {
  const location = rowOf(before, ref)?.skill.location
  return after.skipped.find(
    (p) =>
      p.severity === 'error' &&
      (p.id === id ||
        (location !== undefined &&
          p.hostPath !== undefined &&
          location === `${p.hostPath}/SKILL.md`)),
  )
}

/**
 * One outcome per loaded record (`records`, as they were before any swap),
 * comparing the catalog `after` the refresh with the one `before` it. The
 * message of a skill skipped at discovery is the host's own sentence around
 * the problem's code, never the validator's text, which may quote the skill.
 */
export function refreshOutcomes(
  before: DiscoverySnapshot,
  after: DiscoverySnapshot,
  records: readonly LoadedRef[],
  id: string | undefined,
  swapped: ReadonlyMap<string, string>,
  failed: ReadonlyMap<string, RefreshFailure>,
): RefreshOutcome[] {
  const out: RefreshOutcome[] = []
  for (const r of records) {
    if (id !== undefined && r.id !== id) continue
    const to = swapped.get(r.id)
    const failure = failed.get(r.id)
    const row = rowOf(after, r.ref)
    if (to !== undefined) out.push({ id: r.id, outcome: 'updated', from: r.version, to })
    else if (failure !== undefined)
      out.push({ id: r.id, outcome: 'kept', version: r.version, ...failure })
    else if (row?.skill.version === r.version)
      out.push({ id: r.id, outcome: 'unchanged', version: r.version })
    else if (row !== undefined)
      out.push({
        id: r.id,
        outcome: 'update-available',
        version: r.version,
        available: row.skill.version,
      })
    else {
      const problem = skippedProblem(before, after, r)
      out.push(
        problem === undefined
          ? { id: r.id, outcome: 'removed', version: r.version }
          : {
              id: r.id,
              outcome: 'kept',
              version: r.version,
              code: problem.code,
              message: `Its new version on disk is invalid (${problem.code}), so the loaded version stays until it is unloaded; skillhost validate shows why.`,
            },
      )
    }
  }
  return out
}
