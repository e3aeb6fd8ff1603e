import { fileSystemCopyKey } from '../../skill-model/skill-copy-ref.js'
import type { DigestRunner } from '../lock/skill-digests.js'
import type { SkillPins } from '../lock/skill-pins.js'
import type { ServedSkills } from '../reading/served-skills.js'
import type { SkillSourceLimits } from '../source-limits.js'
import type { DiscoveryProgress, SkillProblem } from '../types.js'
import type { CatalogRows } from './catalog-rows.js'
import { runSync } from './fs-steps.js'
import type { FsSkillEntry } from './load-fs-skill.js'
import type { Discovery, DiscoveryEvent } from './shared-discovery.js'
import { asyncSkillFs, syncSkillFs } from './skill-fs.js'
import type { VisitCache } from './visit-cache.js'
import { walkSkillRoots } from './walk-skill-roots.js'

/** Options for `discoverSkills`: the source's settings and the parts one walk uses. */
export interface DiscoverSkillsOptions {
  readonly roots: readonly string[]
  readonly limits: SkillSourceLimits
  readonly strict: boolean
  /** Stat only the files the loader reads in a skill without a sidecar (see `scanSkillFolderSteps`'s `lean`). */
  readonly statLoadedOnly?: boolean
  /** The overlay directories, absolute, earlier first. */
  readonly overlays: readonly string[]
  /** The first root's number in copy keys (see `FileSystemSkillSourceOptions.firstRootNumber`). */
  readonly firstRootNumber: number
  /** Direct syscalls in time slices (`true`) or the thread pool (see `discoveryIo`). */
  readonly sync: boolean
  /** Remembers each folder between walks; one walk is one of its passes. */
  readonly cache: VisitCache
  /** The lockfile in force: a skill is served only as `admit` decides. */
  readonly pins: SkillPins | undefined
  readonly rows: CatalogRows
  /** Receives the skills this walk serves, once it is complete. */
  readonly served: ServedSkills
  /** Abandons the walk (`E_ABORTED`). */
  readonly signal: AbortSignal
  readonly onProgress: (progress: DiscoveryProgress) => void
}

/** The walk over the roots, each folder through the cache; each SKILL.md's bytes into `skillMds` when given. */
function startWalk(
  options: DiscoverSkillsOptions,
  report: (problem: SkillProblem) => void,
  skillMds: Map<string, Uint8Array> | undefined,
): ReturnType<typeof walkSkillRoots> {
  return walkSkillRoots(options.roots, {
    limits: options.limits,
    strict: options.strict,
    overlays: options.overlays,
    ...(options.statLoadedOnly === true && { statLoadedOnly: true }),
    io: options.sync ? { sync: syncSkillFs } : { async: asyncSkillFs },
    report,
    signal: options.signal,
    visit: (folder, depth, visitOptions) => options.cache.visit(folder, depth, visitOptions),
    visited: (folder, depth, visit) => options.cache.remember(folder, depth, visit),
    ...(skillMds && { onSkillMd: (dir: string, bytes: Uint8Array) => skillMds.set(dir, bytes) }),
    onProgress: options.onProgress,
  })
}

/** A served skill's manifest warnings, each reported beside it (`E_SKILL_MANIFEST_INVALID`, a warning). */
function reportWarnings(
  report: (problem: SkillProblem) => void,
  at: Pick<SkillProblem, 'location' | 'hostPath' | 'id'>,
  warnings: readonly string[] | undefined,
): void {
  for (const message of warnings ?? [])
    report({ ...at, code: 'E_SKILL_MANIFEST_INVALID', message, severity: 'warning' })
}

/**
 * One discovery walk over the roots (`walkSkillRoots`, through `cache`): each
 * id is served from the first folder that has it (a later one is reported
 * `E_SKILL_SHADOWED`), with a lock only as `pins.admit` allows, and a
 * skill's manifest warnings are reported beside it. Every row carries its
 * copy key (`fileSystemCopyKey`: root number and folder); without a lock, a
 * shadowed copy stays served by that key and its row rides on the
 * `E_SKILL_SHADOWED` problem (`shadowedCopy`). A lock pins one folder per
 * id, so under one shadowed copies are not served. A
 * skill's manifest warnings are reported beside it. Once the walk is
 * complete, `served` holds its skills and the cache's pass is closed; a walk
 * that throws leaves both as they were. Both drivers run the same walk.
 */
export async function discoverSkills(options: DiscoverSkillsOptions): Promise<Discovery> {
  const { cache, pins, rows, served } = options
  const pass = cache.begin()
  const events: DiscoveryEvent[] = []
  const report = (problem: SkillProblem): void => void events.push({ problem })
  const found = new Map<string, FsSkillEntry>()
  const copies = new Map<string, FsSkillEntry>()
  const where = new Map<string, string>()
  // With a lock, discovery's SKILL.md bytes go to the digest: no file is read twice.
  const skillMds = pins ? new Map<string, Uint8Array>() : undefined
  const run: DigestRunner | undefined = options.sync
    ? (steps) => runSync(steps, syncSkillFs)
    : undefined
  const walk = startWalk(options, report, skillMds)
  for await (const batch of walk) {
    for (const { location, hostPath, root, outcome } of batch) {
      if (!outcome.ok) {
        for (const message of outcome.errors)
          report({ location, hostPath, code: outcome.code, message, severity: 'error' })
        continue
      }
      const { entry } = outcome
      const id = entry.manifest.name
      const copy = fileSystemCopyKey(root - 1 + options.firstRootNumber, location)
      const first = where.get(id)
      if (first !== undefined) {
        const message = `Skill id "${id}" is already served from ${first}; this copy is shadowed.`
        const reachable = !pins && copy !== undefined && !copies.has(copy)
        const shadowedCopy = reachable ? rows.row(id, entry, hostPath, copy) : undefined
        if (shadowedCopy && copy !== undefined) copies.set(copy, entry)
        report({
          location,
          hostPath,
          id,
          code: 'E_SKILL_SHADOWED',
          message,
          severity: 'warning',
          ...(shadowedCopy && { shadowedCopy }),
        })
        continue
      }
      where.set(id, location)
      const skillMd = skillMds?.get(entry.dir)
      const pin = await pins?.admit(
        id,
        entry.dir,
        entry.scan,
        { location, hostPath },
        report,
        run,
        skillMd && new Map([['SKILL.md', skillMd]]),
      )
      if (pins && !pin) continue
      const skill = rows.row(id, entry, hostPath, copy)
      found.set(id, entry)
      if (copy !== undefined) copies.set(copy, entry)
      reportWarnings(report, { location, hostPath, id }, skill.warnings)
      events.push({ skill: pin ? { ...skill, pin } : skill })
    }
    // A batch's skills are admitted: their SKILL.md bytes are not kept past it.
    skillMds?.clear()
  }
  served.serve(found, copies)
  cache.complete(pass)
  return { events }
}
