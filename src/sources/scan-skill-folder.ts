import { createHash } from 'node:crypto'
import type { Dirent, Stats } from 'node:fs'
import { join, sep } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { asyncSkillFs, type SkillFs } from './skill-fs.js'
import type { SkillSourceLimits } from './source-limits.js'

/** One regular file of a skill, as seen when the folder was scanned. */
export interface SkillFileEntry {
  readonly abs: string
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

/** What a skill folder holds: its files by normalized relative path, and a hash of their stats. */
export interface SkillFolderScan {
  readonly files: ReadonlyMap<string, SkillFileEntry>
  /** Changes whenever a file is added, removed, renamed, resized, rewritten or replaced. */
  readonly hash: string
  /** Entries left out (symlinks leaving the folder, FIFOs, symlinked folders), model-safe. */
  readonly warnings: readonly string[]
}

/** Folders never searched: they hold tooling state, not skill content. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

function insideOf(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * Lists every regular file of the skill folder `dir` with its size, mtime and
 * inode, without following a symlink out of the folder or into a folder, so
 * loops cannot occur. `SKILL.md` itself must be a regular file inside the
 * folder: otherwise `E_SKILL_SOURCE_PATH_REJECTED` (escaping symlink) or
 * `E_SKILL_SOURCE_FAILED` (loop, FIFO, folder). More than `maxFilesPerSkill`
 * files fails with `E_SKILL_SOURCE_TOO_LARGE`. `top` may pass the folder's
 * already-read entries to save a `readdir`, and `known` stats of regular
 * files the caller already took (from an open descriptor) to save a `stat`.
 */
export async function scanSkillFolder(
  dir: string,
  limits: SkillSourceLimits,
  top?: readonly Dirent[],
  known?: ReadonlyMap<string, SkillFileEntry>,
  fs: SkillFs = asyncSkillFs,
): Promise<SkillFolderScan> {
  const files = new Map<string, SkillFileEntry>()
  const warnings: string[] = []
  let realDir: Promise<string> | undefined
  const pending: [rel: string, abs: string, depth: number, entries?: readonly Dirent[]][] = [
    ['', dir, 0, top],
  ]
  while (pending.length > 0) {
    const [rel, abs, depth, given] = pending.pop()!
    const entries = given ?? (await fs.readdir(abs))
    const stats: Promise<void>[] = []
    for (const entry of entries) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`
      const absPath = join(abs, entry.name)
      const isSkillMd = relPath === 'SKILL.md'
      if (entry.isDirectory()) {
        if (isSkillMd)
          throw new SkillHostError('E_SKILL_SOURCE_FAILED', 'SKILL.md is not a regular file.')
        if (SKIPPED_FOLDERS.has(entry.name)) continue
        if (depth + 1 > limits.maxDepth)
          warnings.push(`${relPath}/ is nested too deep; not searched`)
        else pending.push([relPath, absPath, depth + 1])
      } else if (entry.isFile()) {
        const seen = known?.get(relPath)
        if (seen) files.set(relPath, seen)
        else stats.push(fs.stat(absPath).then((s) => add(relPath, absPath, s)))
      } else if (entry.isSymbolicLink()) {
        if (!realDir) {
          realDir = fs.realpath(dir)
          // Awaited only when a link resolves; keep an early failure from going unhandled.
          realDir.catch(() => undefined)
        }
        stats.push(followLink(relPath, absPath, isSkillMd))
      } else if (isSkillMd) {
        throw new SkillHostError('E_SKILL_SOURCE_FAILED', 'SKILL.md is not a regular file.')
      } else warnings.push(`${relPath} is not a regular file; ignored`)
    }
    await Promise.all(stats)
    if (files.size > limits.maxFilesPerSkill) {
      throw new SkillHostError(
        'E_SKILL_SOURCE_TOO_LARGE',
        `The skill has more than ${limits.maxFilesPerSkill} files; split it or raise limits.maxFilesPerSkill.`,
      )
    }
  }
  return { files, hash: hashFiles(files), warnings }

  function add(rel: string, abs: string, s: Stats): void {
    files.set(rel, { abs, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino })
  }

  async function followLink(rel: string, abs: string, isSkillMd: boolean): Promise<void> {
    let target: string
    let s: Stats
    try {
      target = await fs.realpath(abs)
      s = await fs.stat(target)
    } catch (cause) {
      // ELOOP (a symlink loop) and dangling links land here.
      if (isSkillMd)
        throw new SkillHostError(
          'E_SKILL_SOURCE_FAILED',
          'SKILL.md is a broken or looping symlink.',
          { cause },
        )
      warnings.push(`${rel} is a broken or looping symlink; ignored`)
      return
    }
    if (!insideOf(await realDir!, target)) {
      if (isSkillMd) {
        throw new SkillHostError(
          'E_SKILL_SOURCE_PATH_REJECTED',
          'SKILL.md is a symlink that leads outside the skill folder.',
        )
      }
      warnings.push(`${rel} is a symlink that leads outside the skill folder; ignored`)
    } else if (s.isFile()) add(rel, abs, s)
    else if (isSkillMd)
      throw new SkillHostError('E_SKILL_SOURCE_FAILED', 'SKILL.md is not a regular file.')
    else warnings.push(`${rel} is a symlink to a folder; not followed`)
  }
}

/** A short digest of relative paths, sizes, mtimes and inodes, in path order. */
export function hashFiles(files: ReadonlyMap<string, SkillFileEntry>): string {
  const hash = createHash('sha1')
  for (const rel of [...files.keys()].sort()) {
    const f = files.get(rel)!
    hash.update(`${rel}\0${f.size}\0${f.mtimeMs}\0${f.ino}\n`)
  }
  return hash.digest('base64url').slice(0, 16)
}
