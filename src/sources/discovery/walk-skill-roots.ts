import { basename, resolve } from 'node:path'
import type { SkillSourceLimits } from '../source-limits.js'
import type { DiscoveryProgress, SkillProblem } from '../types.js'
import { FolderLinks } from './folder-links.js'
import { type FsSteps, runAsync, runSync } from './fs-steps.js'
import type { FsSkillOutcome, LoadFsSkillOptions } from './load-fs-skill.js'
import { mapOrdered } from './map-ordered.js'
import { childPath, type SkillFs, type SyncSkillFs } from './skill-fs.js'
import {
  type Folder,
  throwIfAborted,
  type Visit,
  type VisitOptions,
  visitSteps,
} from './visit-folder.js'

/** One skill folder found under a root, with the verdict on it. */
export interface SkillFolderResult {
  /** Model-safe: the folder's path relative to its root (the folder name for a root that is a skill). */
  readonly location: string
  /** Host-side absolute path of the skill folder. */
  readonly hostPath: string
  /** The number of the root it was found under, 1-based, in the order the roots were given. */
  readonly root: number
  readonly outcome: FsSkillOutcome
}

/**
 * Which driver runs discovery's steps: direct calls in time slices, one
 * folder at a time, or the thread pool, `limits.concurrency` folders at once.
 */
export type DiscoveryIo = { readonly sync: SyncSkillFs } | { readonly async: SkillFs }

/** Options for `walkSkillRoots`. */
export interface WalkSkillRootsOptions {
  readonly limits: SkillSourceLimits
  readonly strict: boolean
  /** Overlay directories for the skills found (see `LoadFsSkillOptions.overlays`). */
  readonly overlays?: readonly string[]
  /** Receives each SKILL.md's bytes (see `LoadFsSkillOptions.onSkillMd`). */
  readonly onSkillMd?: LoadFsSkillOptions['onSkillMd']
  readonly statLoadedOnly?: LoadFsSkillOptions['statLoadedOnly']
  readonly io: DiscoveryIo
  readonly signal?: AbortSignal
  readonly report: (problem: SkillProblem) => void
  /**
   * Visits one folder: `visitSteps`, or a cache's `visit` that answers from
   * what it remembers (see `VisitCache`). Same steps, same results.
   */
  readonly visit?: (folder: Folder, depth: number, options: VisitOptions) => FsSteps<Visit>
  /** Told each folder's visit once its steps are done (a cache's `remember`). */
  readonly visited?: (folder: Folder, depth: number, visit: Visit) => void
  /** Running totals, at each time slice's end and once when the walk ends. */
  readonly onProgress?: (progress: DiscoveryProgress) => void
}

const SLICE_MS = 10
/** Skill results handed to the consumer at once; bounds the work between slice checks. */
const MAX_BATCH = 32

/** The code of a folder the walk did not search: below `maxDepth`, or inside a skill. */
export const NOT_SEARCHED = 'E_SKILL_NOT_SEARCHED'

const notSearched = (location: string, hostPath: string, message: string): SkillProblem => ({
  location,
  hostPath,
  code: NOT_SEARCHED,
  message,
  severity: 'warning',
})

/**
 * What one visit hands on besides a skill: the folders to search next (in
 * name order) and the problems to report — skills nested in a skill folder,
 * folders at the depth limit, symlinks leading nowhere, symlinked folders
 * not followed. Links are judged here, in walk order, by `links`.
 */
function settle(
  v: Visit,
  links: FolderLinks,
  maxDepth: number,
  next: Folder[],
  problems: SkillProblem[],
): void {
  if (v.kind === 'unreadable') return
  if (v.kind === 'skill') {
    const nested = v.outcome.ok ? v.outcome.entry.scan.nested : (v.outcome.nested ?? [])
    const location = v.rel || v.name
    for (const n of nested) {
      const message = `The folder holds a SKILL.md inside the skill folder ${location}; a skill inside another skill is not served. Move it out, or give it as a root of its own.`
      problems.push(notSearched(`${location}/${n}`, childPath(v.dir, n), message))
    }
    return
  }
  for (const item of v.items) {
    const folder = 'link' in item ? item.link : item
    if (v.atDepthLimit) {
      const message = `The folder is below the search depth (limits.maxDepth ${maxDepth}); not searched. Raise the depth to search it (skillhost: --max-depth).`
      problems.push(notSearched(folder.rel, folder.dir, message))
    } else if (!('link' in item)) next.push(item)
    else {
      const why = links.judge(folder.rel, item.target, v.real ?? folder.dir)
      if (why === undefined)
        next.push({ dir: item.target, rel: folder.rel, name: basename(item.target) })
      else
        problems.push({
          location: folder.rel,
          hostPath: folder.dir,
          code: 'E_SKILL_SOURCE_PATH_REJECTED',
          message: why,
          severity: 'warning',
        })
    }
  }
  for (const { link, errno } of v.broken) {
    problems.push({
      location: link.rel,
      hostPath: link.dir,
      code: 'E_SKILL_SOURCE_FAILED',
      message: `The symlink leads nowhere (${errno}); ignored.`,
      severity: 'warning',
    })
  }
}

/** What the walk yields for a skill folder, `root` counted from 1. */
function skillResult(v: Extract<Visit, { kind: 'skill' }>, root: number): SkillFolderResult {
  return { location: v.rel || v.name, hostPath: v.dir, root, outcome: v.outcome }
}

/** The problem of a folder (or the root itself) that could not be read. */
function unreadableProblem(v: Extract<Visit, { kind: 'unreadable' }>, root: string): SkillProblem {
  return {
    location: v.rel || basename(root),
    hostPath: v.dir,
    code: 'E_SKILL_SOURCE_FAILED',
    message:
      v.rel === ''
        ? `The root could not be read (${v.errno}).`
        : `The folder could not be read (${v.errno}).`,
    severity: 'error',
  }
}

/** Why the walk stopped at `maxEntries` directory entries. */
function tooLargeProblem(root: string, maxEntries: number): SkillProblem {
  return {
    location: basename(root),
    hostPath: root,
    code: 'E_SKILL_SOURCE_TOO_LARGE',
    message: `The walk stopped after ${maxEntries} directory entries; raise limits.maxEntries or narrow the roots.`,
    severity: 'error',
  }
}

/** Reports progress and gives timers and I/O a turn; the start of the next time slice. */
async function giveTurn(
  onProgress: ((progress: DiscoveryProgress) => void) | undefined,
  progress: DiscoveryProgress,
  signal: AbortSignal | undefined,
): Promise<number> {
  onProgress?.(progress)
  await new Promise((resolve) => setImmediate(resolve))
  throwIfAborted(signal)
  return performance.now()
}

/** The thread-pool driver's visits of one level: `limits.concurrency` folders in flight, taken in walk order. */
function visitsInFlight(
  level: readonly Folder[],
  depth: number,
  options: WalkSkillRootsOptions,
  visit: NonNullable<WalkSkillRootsOptions['visit']>,
  fs: SkillFs,
) {
  return mapOrdered(level, options.limits.concurrency, (f) =>
    runAsync(visit(f, depth, options), fs),
  )
}

/** The sync driver's visit of `level[i]`, by direct calls; done past the level's end. */
function visitAt(
  level: readonly Folder[],
  i: number,
  depth: number,
  options: WalkSkillRootsOptions,
  visit: NonNullable<WalkSkillRootsOptions['visit']>,
  fs: SyncSkillFs,
): IteratorResult<Visit, undefined> {
  const f = level[i]
  if (f === undefined) return { done: true, value: undefined }
  return { done: false, value: runSync(visit(f, depth, options), fs) }
}

/**
 * Walks each root breadth-first, in root order and then name order, for
 * folders holding a `SKILL.md` (a root may itself be one). A skill folder is
 * not searched for further skills; a `SKILL.md` nested in one is reported
 * (`E_SKILL_NOT_SEARCHED`). `.git` and `node_modules` are skipped. A
 * symlinked folder is followed to its canonical target, which is then the
 * folder (a skill there is named as its target is), unless `FolderLinks`
 * refuses it: a loop, a target inside the root, a target already followed
 * (each reported). Folders at `maxDepth` are not searched further; each
 * subfolder left out is reported (`E_SKILL_NOT_SEARCHED`). The walk stops
 * after `maxEntries` directory entries, reporting why.
 * Folders are read `concurrency` at a time (one at a time, without promises,
 * with `io.sync`); either way every folder's steps are the same and results
 * are taken in walk order, so both drivers yield the same skills and
 * problems in the same order. Skills come in batches, in walk order; problems
 * the walk reports are reported after every skill found before them was
 * yielded. Throws `E_ABORTED` once `signal` is aborted.
 */
export async function* walkSkillRoots(
  roots: readonly string[],
  options: WalkSkillRootsOptions,
): AsyncGenerator<readonly SkillFolderResult[]> {
  const { limits, signal, report, io, onProgress } = options
  const visit = options.visit ?? visitSteps
  // Direct calls need no promise per folder; the thread pool keeps many folders in flight.
  const syncFs = 'sync' in io ? io.sync : undefined
  let seen = 0
  let sliceStart = performance.now()
  let folders = 0
  let skills = 0

  let batch: SkillFolderResult[] = []
  const problems: SkillProblem[] = []
  for (const [index, rawRoot] of roots.entries()) {
    const root = resolve(rawRoot)
    let links = new FolderLinks(root)
    let level: Folder[] = [{ dir: root, rel: '' }]
    for (let depth = 0; level.length > 0; depth++) {
      const next: Folder[] = []
      const visits =
        'async' in io ? visitsInFlight(level, depth, options, visit, io.async) : undefined
      try {
        for (let i = 0; ; i++) {
          const r = syncFs ? visitAt(level, i, depth, options, visit, syncFs) : await visits!.next()
          if (r.done) break
          const v = r.value
          // Results come in walk order, so `level[i]` is the folder `v` visited.
          options.visited?.(level[i]!, depth, v)
          throwIfAborted(signal)
          folders++
          if (depth === 0 && v.kind === 'folder' && v.real) links = new FolderLinks(v.real)
          if (v.kind === 'skill') {
            skills++
            batch.push(skillResult(v, index + 1))
          } else if (v.kind === 'unreadable') {
            problems.push(unreadableProblem(v, root))
          } else {
            seen += v.entries
            if (seen > limits.maxEntries) {
              if (batch.length > 0) yield batch
              batch = []
              report(tooLargeProblem(root, limits.maxEntries))
              return
            }
          }
          settle(v, links, limits.maxDepth, next, problems)
          // Keep reports in walk order: skills found earlier go out first.
          if (problems.length > 0) {
            if (batch.length > 0) {
              yield batch
              batch = []
            }
            for (const p of problems) report(p)
            problems.length = 0
          }
          // Synchronous filesystem calls never yield to the event loop on their
          // own; give timers and I/O a turn about every 10 ms.
          if (batch.length >= MAX_BATCH || performance.now() - sliceStart > SLICE_MS) {
            if (batch.length > 0) {
              yield batch
              batch = []
            }
            if (performance.now() - sliceStart > SLICE_MS)
              sliceStart = await giveTurn(onProgress, { folders, skills }, signal)
          }
        }
      } finally {
        await visits?.return(undefined)
      }
      level = next
    }
  }
  onProgress?.({ folders, skills })
  if (batch.length > 0) yield batch
}
