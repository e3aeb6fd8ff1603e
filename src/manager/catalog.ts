import { renderError } from '../common/errors.js'
import { capDescription } from '../manifest/cap-description.js'
import { formatSkillCopyRef } from '../skill-model/skill-copy-ref.js'
import type { DiscoveredSkill, SkillProblem, SkillSource } from '../sources/types.js'
import type { CatalogEntry, SkillCatalog, SourceError } from './types.js'

/** A discovered skill together with the source that serves it. */
export interface CatalogSkill {
  readonly skill: DiscoveredSkill
  readonly source: SkillSource
  /** Lower-cased id, name and description, precomputed so queries stay linear and cheap. */
  readonly haystack: string
  /**
   * The copy's qualified ref (`formatSkillCopyRef`: the source id and the
   * row's copy key, or its id when the source gives none); undefined when it
   * would be too long, and then only a winner is reachable, by its id.
   */
  readonly qualified: string | undefined
}

/** A row hidden by an earlier row of the same id, and the source of that winner. */
export type ShadowedSkill = CatalogSkill & { readonly shadowedBy: string }

// A source that replays a discovery yields the same objects: many managers
// over one source then share each row's lower-cased text instead of making it.
const haystacks = new WeakMap<DiscoveredSkill, string>()

function haystackOf(skill: DiscoveredSkill): string {
  let text = haystacks.get(skill)
  if (text === undefined) {
    text = `${skill.id}\n${skill.name}\n${skill.description}`.toLowerCase()
    haystacks.set(skill, text)
  }
  return text
}

/** Rows built from one source's shared batch (`SkillSource.discoverBatch`), by that batch. */
const rowsShared = new WeakMap<
  readonly DiscoveredSkill[],
  {
    readonly source: SkillSource
    readonly winners: ReadonlyMap<string, CatalogSkill>
    readonly shadowed: readonly ShadowedSkill[]
    readonly copies: ReadonlyMap<string, CatalogSkill>
  }
>()

/** One discovery pass over every source, in order. */
export interface DiscoverySnapshot {
  readonly winners: ReadonlyMap<string, CatalogSkill>
  /** Rows hidden by a winner of their id: a later source's, and a source's own shadowed copies. */
  readonly shadowed: readonly ShadowedSkill[]
  /** Every row with a qualified ref (winners and shadowed), by that ref. */
  readonly copies: ReadonlyMap<string, CatalogSkill>
  readonly skipped: SkillCatalog['skipped']
  readonly sourceErrors: readonly SourceError[]
}

/**
 * Discovers every source in order. An earlier source wins an id collision and
 * the loser stays visible as shadowed, as does a copy a source shadowed
 * itself and still serves (`SkillProblem.shadowedCopy`); every row is
 * indexed by its qualified ref. A source that throws is recorded in
 * `sourceErrors` (model-safe text) while the others keep serving.
 */
export async function discoverAll(
  sources: readonly SkillSource[],
  signal?: AbortSignal,
): Promise<DiscoverySnapshot> {
  const perSource = await Promise.all(
    sources.map(async (source) => {
      let skills: readonly DiscoveredSkill[] = []
      const problems: SkillProblem[] = []
      const options = { signal, report: (p: SkillProblem) => void problems.push(p) }
      try {
        if (source.discoverBatch) skills = await source.discoverBatch(options)
        else {
          const each: DiscoveredSkill[] = []
          for await (const skill of source.discover(options)) each.push(skill)
          skills = each
        }
        return { source, skills, problems, error: undefined }
      } catch (err) {
        // Keep what the source reported before failing, but none of its skills:
        // a half-discovered source would show a partial catalog as if complete.
        return { source, skills: [], problems, error: err }
      }
    }),
  )
  const skipped: {
    source: string
    location: string
    code: string
    message: string
    severity: 'error' | 'warning'
  }[] = []
  const sourceErrors: SourceError[] = []
  for (const { source, problems, error } of perSource) {
    for (const p of problems) skipped.push({ ...p, source: source.id })
    if (error === undefined) continue
    const text = renderError(error)
    const colon = text.indexOf(':')
    sourceErrors.push({
      source: source.id,
      code: text.slice(0, colon),
      message: text.slice(colon + 2) || 'discovery failed',
    })
  }
  // One source whose batch is shared (a discovery replayed to many managers):
  // the rows built for the first manager serve them all; nothing mutates them.
  const only =
    perSource.length === 1 && perSource[0]?.error === undefined ? perSource[0] : undefined
  const shared = only && rowsShared.get(only.skills)
  if (shared && shared.source === only?.source) return { ...shared, skipped, sourceErrors }
  const winners = new Map<string, CatalogSkill>()
  const shadowed: ShadowedSkill[] = []
  const copies = new Map<string, CatalogSkill>()
  const add = (skill: DiscoveredSkill, source: SkillSource, copyOnly: boolean): void => {
    let qualified = formatSkillCopyRef(source.id, skill.copy ?? skill.id)
    // A ref names one row: a second row with it (a source that serves an id twice without copy keys) has none.
    if (qualified !== undefined && copies.has(qualified)) qualified = undefined
    const winner = winners.get(skill.id)
    // A source's own shadowed copy is listed only when a ref reaches it and a winner hides it.
    if (copyOnly && (qualified === undefined || winner === undefined)) return
    const row: CatalogSkill = { skill, source, haystack: haystackOf(skill), qualified }
    if (qualified !== undefined) copies.set(qualified, row)
    if (winner) shadowed.push({ ...row, shadowedBy: winner.source.id })
    else winners.set(skill.id, row)
  }
  for (const { source, skills, problems, error } of perSource) {
    if (error !== undefined) continue
    for (const skill of skills) add(skill, source, false)
    for (const p of problems)
      if (p.code === 'E_SKILL_SHADOWED' && p.shadowedCopy?.copy !== undefined)
        add(p.shadowedCopy, source, true)
  }
  if (only) rowsShared.set(only.skills, { source: only.source, winners, shadowed, copies })
  return { winners, shadowed, copies, skipped, sourceErrors }
}

/**
 * Builds one catalog row; `loadedVersion` is the version a record loaded
 * under this row's ref holds, if any. The description is capped at the spec's 1,024 characters here, the
 * one place every model-facing listing takes it from.
 */
export function catalogEntry(
  row: CatalogSkill,
  loadedVersion: string | undefined,
  shadowedBy?: string,
): CatalogEntry {
  const { skill } = row
  const entry: CatalogEntry = {
    id: skill.id,
    ...(shadowedBy === undefined
      ? { ref: skill.id }
      : row.qualified === undefined
        ? {}
        : { ref: row.qualified }),
    name: skill.name,
    description: capDescription(skill.description),
    version: skill.version,
    source: row.source.id,
    loaded: loadedVersion !== undefined,
    ...(loadedVersion !== undefined ? { loadedVersion } : {}),
    ...(shadowedBy === undefined ? {} : { shadowedBy }),
    ...(loadedVersion !== undefined && loadedVersion !== skill.version
      ? { updateAvailable: true }
      : {}),
    ...(skill.license === undefined ? {} : { license: skill.license }),
    ...(skill.compatibility === undefined ? {} : { compatibility: skill.compatibility }),
    ...(skill.metadata === undefined ? {} : { metadata: skill.metadata }),
    ...(skill.warnings?.length ? { warnings: skill.warnings } : {}),
    ...(skill.location === undefined ? {} : { location: skill.location }),
    ...(skill.disableModelInvocation === true ? { disableModelInvocation: true as const } : {}),
    ...(skill.pin === undefined ? {} : { pin: skill.pin }),
  }
  return entry
}
