import type { Dirent } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { type FsSkillOutcome, loadFsSkill } from './load-fs-skill.js'
import { mapOrdered } from './map-ordered.js'
import { SKIPPED_FOLDERS } from './scan-skill-folder.js'
import type { SkillFs } from './skill-fs.js'
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

/** Options for `walkSkillRoots`. */
export interface WalkSkillRootsOptions {
  readonly limits: SkillSourceLimits
  readonly strict: boolean
  readonly fs: SkillFs
  readonly signal?: AbortSignal
  readonly report: (problem: SkillProblem) => void
}

type Folder = { dir: string; rel: string }

type Visit =
  | { kind: 'skill'; result: SkillFolderResult }
  | { kind: 'folder'; children: Folder[]; links: Folder[]; entries: number }
  | { kind: 'unreadable'; rel: string; dir: string; errno: string }

const SLICE_MS = 10

const byRel = (a: Folder, b: Folder): number => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0)

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SkillHostError('E_ABORTED', 'Skill discovery was aborted.', { cause: signal.reason })
  }
}

/**
 * Walks each root breadth-first, in root order and then name order, for
 * folders holding a `SKILL.md` (a root may itself be one). A skill folder is
 * not searched for further skills. `.git` and `node_modules` are skipped;
 * symlinked folders are not followed (so loops cannot occur); the walk stops
 * at `maxDepth` and after `maxEntries` directory entries, reporting why.
 * Folders are read `concurrency` at a time. Throws `E_ABORTED` once `signal`
 * is aborted.
 */
export async function* walkSkillRoots(
  roots: readonly string[],
  options: WalkSkillRootsOptions,
): AsyncGenerator<SkillFolderResult> {
  const { limits, signal, report } = options
  let seen = 0
  let sliceStart = performance.now()
  const visit = async (dir: string, rel: string, depth: number): Promise<Visit> => {
    throwIfAborted(signal)
    let entries: Dirent[]
    try {
      entries = await options.fs.readdir(dir)
    } catch (err) {
      return { kind: 'unreadable', rel, dir, errno: (err as NodeJS.ErrnoException).code ?? 'error' }
    }
    if (entries.some((e) => e.name === 'SKILL.md')) {
      const folderName = basename(dir)
      const outcome = await loadFsSkill(dir, folderName, options, entries)
      return { kind: 'skill', result: { location: rel || folderName, hostPath: dir, outcome } }
    }
    const children: Folder[] = []
    const links: Folder[] = []
    if (depth < limits.maxDepth) {
      for (const e of entries) {
        const child = { dir: join(dir, e.name), rel: rel === '' ? e.name : `${rel}/${e.name}` }
        if (e.isDirectory() && !SKIPPED_FOLDERS.has(e.name)) children.push(child)
        else if (
          e.isSymbolicLink() &&
          (await options.fs.stat(child.dir).catch(() => undefined))?.isDirectory()
        ) {
          links.push(child)
        }
      }
      children.sort(byRel)
      links.sort(byRel)
    }
    return { kind: 'folder', children, links, entries: entries.length }
  }

  for (const rawRoot of roots) {
    const root = resolve(rawRoot)
    let level: Folder[] = [{ dir: root, rel: '' }]
    for (let depth = 0; level.length > 0; depth++) {
      const next: Folder[] = []
      for await (const v of mapOrdered(level, limits.concurrency, (f) =>
        visit(f.dir, f.rel, depth),
      )) {
        throwIfAborted(signal)
        // Synchronous filesystem calls never yield to the event loop on their
        // own; give timers and I/O a turn about every 10 ms.
        if (performance.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve))
          throwIfAborted(signal)
          sliceStart = performance.now()
        }
        if (v.kind === 'skill') {
          yield v.result
          continue
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
          continue
        }
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
      level = next
    }
  }
}
