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
import { type StartReadAhead, WalkAhead } from './walk-ahead.js'

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
  /**
   * With `io.sync`: a read-ahead to start once the walk outlasts its first
   * time slice (see `WalkAhead`); the walk then lists through its driver.
   * Ended when the walk ends, however it ends.
   */
  readonly readAhead?: StartReadAhead
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
  const state: WalkState = {
    seen: 0,
    folders: 0,
    skills: 0,
    sliceStart: performance.now(),
    batch: [],
    problems: [],
    // Direct calls need no promise per folder; the thread pool keeps many folders in flight.
    syncFs: 'sync' in options.io ? options.io.sync : undefined,
    ahead: new WalkAhead('sync' in options.io ? options.readAhead : undefined),
    stopped: false,
  }
  try {
    for (const [index, rawRoot] of roots.entries()) {
      yield* walkRoot(resolve(rawRoot), index + 1, options, state)
      if (state.stopped) return
    }
  } finally {
    state.ahead.close()
  }
  options.onProgress?.({ folders: state.folders, skills: state.skills })
  if (state.batch.length > 0) yield state.batch
}

/** What a walk carries from folder to folder and from root to root. */
interface WalkState {
  /** Directory entries seen, against `maxEntries`. */
  seen: number
  folders: number
  skills: number
  sliceStart: number
  batch: SkillFolderResult[]
  readonly problems: SkillProblem[]
  /** The sync driver (a read-ahead's once one started); undefined with the thread pool. */
  syncFs: SyncSkillFs | undefined
  readonly ahead: WalkAhead
  /** `maxEntries` was passed: the walk ends here. */
  stopped: boolean
}

/** The walk of root number `number` (see `walkSkillRoots`), breadth-first. */
async function* walkRoot(
  root: string,
  number: number,
  options: WalkSkillRootsOptions,
  state: WalkState,
): AsyncGenerator<readonly SkillFolderResult[]> {
  const { limits, signal, report, io } = options
  const visit = options.visit ?? visitSteps
  let links = new FolderLinks(root)
  let level: Folder[] = [{ dir: root, rel: '' }]
  for (let depth = 0; level.length > 0; depth++) {
    const next: Folder[] = []
    const visits =
      'async' in io ? visitsInFlight(level, depth, options, visit, io.async) : undefined
    try {
      for (let i = 0; ; i++) {
        const r = state.syncFs
          ? visitAt(level, i, depth, options, visit, state.syncFs)
          : await visits!.next()
        if (r.done) break
        const v = r.value
        // Results come in walk order, so `level[i]` is the folder `v` visited.
        options.visited?.(level[i]!, depth, v)
        throwIfAborted(signal)
        state.folders++
        if (depth === 0 && v.kind === 'folder' && v.real) links = new FolderLinks(v.real)
        if (v.kind === 'skill') {
          state.skills++
          state.batch.push(skillResult(v, number))
        } else if (v.kind === 'unreadable') {
          state.problems.push(unreadableProblem(v, root))
        } else {
          state.seen += v.entries
          if (state.seen > limits.maxEntries) {
            if (state.batch.length > 0) yield state.batch
            state.batch = []
            report(tooLargeProblem(root, limits.maxEntries))
            state.stopped = true
            return
          }
        }
        settle(v, links, limits.maxDepth, next, state.problems)
        state.ahead.found(next)
        // Keep reports in walk order: skills found earlier go out first.
        if (state.problems.length > 0) {
          if (state.batch.length > 0) yield state.batch
          state.batch = []
          for (const p of state.problems) report(p)
          state.problems.length = 0
        }
        if (state.batch.length >= MAX_BATCH || performance.now() - state.sliceStart > SLICE_MS)
          yield* sliceEnd(state, options, () => level.slice(i + 1), next)
      }
    } finally {
      await visits?.return(undefined)
    }
    state.ahead.levelDone(next)
    level = next
  }
}

/**
 * Hands on a full batch; at a time slice's end, also gives timers and I/O a
 * turn (synchronous filesystem calls never yield to the event loop on their
 * own), and the first time starts the read-ahead with what is left to visit.
 */
async function* sliceEnd(
  state: WalkState,
  options: WalkSkillRootsOptions,
  rest: () => readonly Folder[],
  next: readonly Folder[],
): AsyncGenerator<readonly SkillFolderResult[]> {
  if (state.batch.length > 0) {
    yield state.batch
    state.batch = []
  }
  if (performance.now() - state.sliceStart <= SLICE_MS) return
  const progress = { folders: state.folders, skills: state.skills }
  state.sliceStart = await giveTurn(options.onProgress, progress, options.signal)
  if (state.syncFs) state.syncFs = await state.ahead.started(state.syncFs, rest(), next)
}
