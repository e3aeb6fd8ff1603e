import type { Dirent } from 'node:fs'
import { basename, resolve } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { allSteps, type FsSteps, runAsync, runSync, statStep } from './fs-steps.js'
import { type FsSkillOutcome, loadFsSkillSteps } from './load-fs-skill.js'
import { mapOrdered } from './map-ordered.js'
import { inNameOrder, SKIPPED_FOLDERS } from './scan-skill-folder.js'
import { childPath, type SkillFs, type SyncSkillFs } from './skill-fs.js'
import type { SkillSourceLimits } from './source-limits.js'
import type { SkillProblem } from './types.js'

/** One skill folder found under a root, with the verdict on it. */
export interface SkillFolderResult {
  /** Model-safe: the folder's path relative to its root (the folder name for a root that is a skill). */
  readonly location: string
  /** Host-side absolute path of the skill folder. */
  readonly hostPath: string
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
  readonly io: DiscoveryIo
  readonly signal?: AbortSignal
  readonly report: (problem: SkillProblem) => void
}

type Folder = { dir: string; rel: string }

type Visit =
  | { kind: 'skill'; result: SkillFolderResult }
  | { kind: 'folder'; children: Folder[]; links: Folder[]; entries: number }
  | { kind: 'unreadable'; rel: string; dir: string; errno: string }

const SLICE_MS = 10
/** Skill results handed to the consumer at once; bounds the work between slice checks. */
const MAX_BATCH = 32

/** Throws `E_ABORTED` once `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SkillHostError('E_ABORTED', 'Skill discovery was aborted.', { cause: signal.reason })
  }
}

function hasSkillMd(entries: readonly Dirent[]): boolean {
  for (const e of entries) if (e.name === 'SKILL.md') return true
  return false
}

/** Subfolders to search and symlinks that may lead to folders, in the order of `entries`. */
function subfolders(
  entries: readonly Dirent[],
  dir: string,
  rel: string,
): { children: Folder[]; symlinks: Folder[] } {
  const children: Folder[] = []
  const symlinks: Folder[] = []
  for (const e of entries) {
    const list = e.isDirectory()
      ? SKIPPED_FOLDERS.has(e.name)
        ? undefined
        : children
      : e.isSymbolicLink()
        ? symlinks
        : undefined
    list?.push({ dir: childPath(dir, e.name), rel: rel === '' ? e.name : `${rel}/${e.name}` })
  }
  return { children, symlinks }
}

const unreadable = (dir: string, rel: string, err: unknown): Visit => ({
  kind: 'unreadable',
  rel,
  dir,
  errno: (err as NodeJS.ErrnoException).code ?? 'error',
})

/** `isDirectory` of what `path` leads to; false when it leads nowhere. */
function* leadsToFolder(path: string): FsSteps<boolean> {
  try {
    return (yield* statStep(path)).isDirectory()
  } catch {
    return false
  }
}

/**
 * Reads one folder of the walk: a skill (loaded), or the subfolders to search
 * and the symlinked folders to report, in name order whatever `readdir` returns.
 */
function* visitSteps(
  folder: Folder,
  depth: number,
  options: WalkSkillRootsOptions,
): FsSteps<Visit> {
  const { dir, rel } = folder
  throwIfAborted(options.signal)
  let entries: readonly Dirent[]
  try {
    // Yielded directly, not through `readdirStep`: one generator fewer per folder.
    entries = inNameOrder((yield { op: 'readdir', path: dir }) as Dirent[])
  } catch (err) {
    return unreadable(dir, rel, err)
  }
  if (hasSkillMd(entries)) {
    // Below the root, the last segment of `rel` is the entry's name: no path parsing per skill.
    const folderName = rel === '' ? basename(dir) : rel.slice(rel.lastIndexOf('/') + 1)
    const outcome = yield* loadFsSkillSteps(dir, folderName, options, entries)
    return { kind: 'skill', result: { location: rel || folderName, hostPath: dir, outcome } }
  }
  if (depth >= options.limits.maxDepth)
    return { kind: 'folder', children: [], links: [], entries: entries.length }
  const { children, symlinks } = subfolders(entries, dir, rel)
  const isFolder =
    symlinks.length === 0 ? [] : yield* allSteps(symlinks.map((l) => leadsToFolder(l.dir)))
  const links = symlinks.filter((_, i) => isFolder[i])
  return { kind: 'folder', children, links, entries: entries.length }
}

/**
 * Walks each root breadth-first, in root order and then name order, for
 * folders holding a `SKILL.md` (a root may itself be one). A skill folder is
 * not searched for further skills. `.git` and `node_modules` are skipped;
 * symlinked folders are not followed (so loops cannot occur); the walk stops
 * at `maxDepth` and after `maxEntries` directory entries, reporting why.
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
  const { limits, signal, report, io } = options
  // Direct calls need no promise per folder; the thread pool keeps many folders in flight.
  const visitNow =
    'sync' in io
      ? (f: Folder, depth: number): Visit => runSync(visitSteps(f, depth, options), io.sync)
      : undefined
  let seen = 0
  let sliceStart = performance.now()

  let batch: SkillFolderResult[] = []
  for (const rawRoot of roots) {
    const root = resolve(rawRoot)
    let level: Folder[] = [{ dir: root, rel: '' }]
    for (let depth = 0; level.length > 0; depth++) {
      const next: Folder[] = []
      const visits =
        'async' in io
          ? mapOrdered(level, limits.concurrency, (f) =>
              runAsync(visitSteps(f, depth, options), io.async),
            )
          : undefined
      try {
        for (let i = 0; ; i++) {
          let v: Visit
          if (visitNow) {
            const f = level[i]
            if (f === undefined) break
            v = visitNow(f, depth)
          } else {
            const r = await visits!.next()
            if (r.done) break
            v = r.value
          }
          throwIfAborted(signal)
          if (v.kind === 'skill') batch.push(v.result)
          else {
            const reports =
              v.kind === 'unreadable' || v.links.length > 0 || seen + v.entries > limits.maxEntries
            // Keep reports in walk order: skills found earlier go out first.
            if (reports && batch.length > 0) {
              yield batch
              batch = []
            }
            if (v.kind === 'unreadable') {
              report({
                location: v.rel || basename(root),
                hostPath: v.dir,
                code: 'E_SKILL_SOURCE_FAILED',
                message:
                  v.rel === ''
                    ? `The root could not be read (${v.errno}).`
                    : `The folder could not be read (${v.errno}).`,
                severity: 'error',
              })
            } else {
              seen += v.entries
              if (seen > limits.maxEntries) {
                report({
                  location: basename(root),
                  hostPath: root,
                  code: 'E_SKILL_SOURCE_TOO_LARGE',
                  message: `The walk stopped after ${limits.maxEntries} directory entries; raise limits.maxEntries or narrow the roots.`,
                  severity: 'error',
                })
                return
              }
              for (const child of v.children) next.push(child)
              for (const link of v.links) {
                report({
                  location: link.rel,
                  hostPath: link.dir,
                  code: 'E_SKILL_SOURCE_PATH_REJECTED',
                  message:
                    'The folder is a symlink; symlinked folders are not followed. List its target as a root instead.',
                  severity: 'warning',
                })
              }
            }
          }
          // Synchronous filesystem calls never yield to the event loop on their
          // own; give timers and I/O a turn about every 10 ms.
          if (batch.length >= MAX_BATCH || performance.now() - sliceStart > SLICE_MS) {
            if (batch.length > 0) {
              yield batch
              batch = []
            }
            if (performance.now() - sliceStart > SLICE_MS) {
              await new Promise((resolve) => setImmediate(resolve))
              throwIfAborted(signal)
              sliceStart = performance.now()
            }
          }
        }
      } finally {
        await visits?.return(undefined)
      }
      level = next
    }
  }
  if (batch.length > 0) yield batch
}
