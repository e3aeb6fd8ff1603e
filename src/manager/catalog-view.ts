import { type CatalogSkill, catalogEntry, type DiscoverySnapshot } from './catalog.js'
import type {
  CatalogCounts,
  CatalogEntry,
  CatalogPage,
  CatalogSearch,
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
  for (const p of snapshot.skipped) {
    if (p.severity === 'error') skipped += 1
    else if (p.code === 'E_SKILL_SHADOWED') shadowed += 1
  }
  let withWarnings = 0
  for (const row of snapshot.winners.values()) if (row.skill.warnings?.length) withWarnings += 1
  for (const row of snapshot.shadowed) if (row.skill.warnings?.length) withWarnings += 1
  counts = Object.freeze({ skipped, withWarnings, shadowed })
  counted.set(snapshot, counts)
  return counts
}

/** The version a loaded record holds for `id`, or undefined when it is not loaded. */
export type LoadedVersionOf = (id: string) => string | undefined

/** All catalog rows: winners first (with their loaded state), then shadowed rows. */
export function buildCatalog(
  snapshot: DiscoverySnapshot,
  loadedVersionOf: LoadedVersionOf,
): SkillCatalog {
  const entries = [...snapshot.winners.values()].map((row) =>
    catalogEntry(row, loadedVersionOf(row.skill.id)),
  )
  for (const row of snapshot.shadowed) entries.push(catalogEntry(row, undefined, row.shadowedBy))
  return { entries, skipped: snapshot.skipped, sourceErrors: snapshot.sourceErrors }
}

/**
 * A case-insensitive substring query over the precomputed search text of each
 * row, paged by offset. Rows are built only for the page returned, which is
 * what keeps a query over 10,000 skills in the low milliseconds.
 */
export function searchCatalog(
  snapshot: DiscoverySnapshot,
  loadedVersionOf: LoadedVersionOf,
  options: CatalogSearch,
): CatalogPage {
  const needle = options.query?.trim().toLowerCase() ?? ''
  const offset = Math.max(0, Math.floor(options.offset ?? 0))
  const limit = Math.max(0, Math.floor(options.limit ?? Number.POSITIVE_INFINITY))
  const page: CatalogEntry[] = []
  let total = 0
  const consider = (row: CatalogSkill, shadowedBy?: string): void => {
    if (needle && !row.haystack.includes(needle)) return
    if (total >= offset && page.length < limit) {
      const loaded = shadowedBy ? undefined : loadedVersionOf(row.skill.id)
      page.push(catalogEntry(row, loaded, shadowedBy))
    }
    total += 1
  }
  for (const row of snapshot.winners.values()) consider(row)
  for (const row of snapshot.shadowed) consider(row, row.shadowedBy)
  return {
    entries: page,
    total,
    skipped: snapshot.skipped,
    counts: catalogCounts(snapshot),
    sourceErrors: snapshot.sourceErrors,
  }
}

/** Which ids a refresh covered, and which loaded records now lag the catalog. */
export function summarizeRefresh(
  snapshot: DiscoverySnapshot,
  records: Iterable<{ readonly id: string; readonly version: string }>,
  id?: string,
): { refreshed: string[]; updatesAvailable: string[] } {
  const winners = snapshot.winners
  const refreshed = id === undefined ? [...winners.keys()] : winners.has(id) ? [id] : []
  const updatesAvailable: string[] = []
  for (const r of records) {
    if (id !== undefined && r.id !== id) continue
    const row = winners.get(r.id)
    if (row && row.skill.version !== r.version) updatesAvailable.push(r.id)
  }
  return { refreshed, updatesAvailable }
}
