import { basename } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import { allSteps, type FsSteps, realpathStep, resolveStep } from './fs-steps.js'
import { type FsSkillOutcome, type LoadFsSkillOptions, loadFsSkillSteps } from './load-fs-skill.js'
import { inNameOrder, SKIPPED_FOLDERS } from './scan-skill-folder.js'
import { childPath, type DirEntry } from './skill-fs.js'

/** Loads one skill folder: `loadFsSkillSteps`, or a cache's loader that reuses an unchanged folder's outcome. */
export type LoadSkillSteps = (
  dir: string,
  folderName: string,
  options: LoadFsSkillOptions,
  entries?: readonly DirEntry[],
) => FsSteps<FsSkillOutcome>

/** What a visit needs: how to load a skill, the depth limit, and the abort signal. */
export interface VisitOptions extends LoadFsSkillOptions {
  readonly signal?: AbortSignal | undefined
  /** How a skill folder is loaded; `loadFsSkillSteps` when absent. */
  readonly loadSkill?: LoadSkillSteps | undefined
}

/**
 * A folder of the walk. `rel` is model-safe (relative to the root); `dir` is
 * where it is read. For a followed symlink, `dir` is the link's canonical
 * target and `name` the target's name, which the skill's `name` must match.
 */
export interface Folder {
  readonly dir: string
  readonly rel: string
  readonly name?: string
}

/** A symlink among a folder's entries that leads to a folder. */
export interface FolderLink {
  /** The link itself: `dir` is the link's path. */
  readonly link: Folder
  /** The canonical path it leads to. */
  readonly target: string
}

/** A symlink among a folder's entries that leads nowhere (dangling or looping). */
export interface BrokenLink {
  readonly link: Folder
  readonly errno: string
}

/** What one folder of the walk turned out to be. */
export type Visit =
  | {
      readonly kind: 'skill'
      readonly dir: string
      readonly rel: string
      readonly name: string
      readonly outcome: FsSkillOutcome
    }
  | {
      readonly kind: 'folder'
      /** Subfolders and symlinks to folders, in name order. */
      readonly items: readonly (Folder | FolderLink)[]
      readonly broken: readonly BrokenLink[]
      /** The folder's canonical path, when it has links to judge against it (and for a root). */
      readonly real?: string
      /** The folder is at `maxDepth`: its `items` are not searched. */
      readonly atDepthLimit: boolean
      readonly entries: number
    }
  | {
      readonly kind: 'unreadable'
      readonly rel: string
      readonly dir: string
      readonly errno: string
    }

/** Throws `E_ABORTED` once `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SkillHostError('E_ABORTED', 'Skill discovery was aborted.', { cause: signal.reason })
  }
}

function hasSkillMd(entries: readonly DirEntry[]): boolean {
  for (const e of entries) if (e.name === 'SKILL.md') return true
  return false
}

const errnoOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'error'

type Resolved = { readonly target: string; readonly folder: boolean } | { readonly errno: string }

/** Where a symlink leads: its canonical target and whether that is a folder, or why it leads nowhere. */
function* resolveLink(path: string): FsSteps<Resolved> {
  try {
    // Target and stat from one descriptor, as a skill's scan resolves its links.
    const { target, s } = yield* resolveStep(path)
    return { target, folder: s.isDirectory() }
  } catch (err) {
    return { errno: errnoOf(err) }
  }
}

/**
 * Reads one folder of the walk: a skill (loaded), or its subfolders and the
 * symlinks among its entries resolved, in name order whatever `readdir`
 * returns. A root's canonical path is taken first: a root that is a symlink
 * to a skill folder is that folder, named as its target is.
 */
export function* visitSteps(folder: Folder, depth: number, options: VisitOptions): FsSteps<Visit> {
  const { dir, rel } = folder
  throwIfAborted(options.signal)
  let real: string | undefined
  if (depth === 0) {
    try {
      real = yield* realpathStep(dir)
    } catch {
      // The readdir below reports why the root cannot be read.
    }
  }
  let entries: readonly DirEntry[]
  try {
    // Yielded directly, not through `readdirStep`: one generator fewer per folder.
    entries = inNameOrder((yield { op: 'readdir', path: dir }) as DirEntry[])
  } catch (err) {
    return { kind: 'unreadable', rel, dir, errno: errnoOf(err) }
  }
  if (hasSkillMd(entries)) {
    // Below the root, the last segment of `rel` is the entry's name: no path parsing per skill.
    const name =
      folder.name ?? (rel === '' ? basename(real ?? dir) : rel.slice(rel.lastIndexOf('/') + 1))
    const outcome = yield* (options.loadSkill ?? loadFsSkillSteps)(dir, name, options, entries)
    return { kind: 'skill', dir, rel, name, outcome }
  }
  const items: (Folder | FolderLink | number)[] = []
  const links: Folder[] = []
  for (const e of entries) {
    const isDir = e.isDirectory()
    if (!(isDir || e.isSymbolicLink()) || SKIPPED_FOLDERS.has(e.name)) continue
    const child = { dir: childPath(dir, e.name), rel: rel === '' ? e.name : `${rel}/${e.name}` }
    if (isDir) items.push(child)
    else {
      items.push(links.length)
      links.push(child)
    }
  }
  const atDepthLimit = depth >= options.limits.maxDepth
  if (links.length === 0)
    return {
      kind: 'folder',
      items: items as Folder[],
      broken: [],
      ...(real && { real }),
      atDepthLimit,
      entries: entries.length,
    }
  const resolved = yield* allSteps(links.map((l) => resolveLink(l.dir)))
  if (real === undefined && !atDepthLimit) {
    try {
      real = yield* realpathStep(dir)
    } catch {
      // Read a moment ago, gone now: its links are judged by the path it was read at.
      real = dir
    }
  }
  const broken: BrokenLink[] = []
  const out: (Folder | FolderLink)[] = []
  for (const item of items) {
    if (typeof item !== 'number') {
      out.push(item)
      continue
    }
    const link = links[item]!
    const r = resolved[item]!
    if ('errno' in r) broken.push({ link, errno: r.errno })
    else if (r.folder) out.push({ link, target: r.target })
  }
  return {
    kind: 'folder',
    items: out,
    broken,
    ...(real && { real }),
    atDepthLimit,
    entries: entries.length,
  }
}
