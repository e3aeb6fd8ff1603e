import * as crypto from 'node:crypto'
import type { Dirent, Stats } from 'node:fs'
import { sep } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { asyncSkillFs, childPath, type SkillFs, type SyncSkillFs } from './skill-fs.js'
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

const notRegular = (): SkillHostError =>
  new SkillHostError('E_SKILL_SOURCE_FAILED', 'SKILL.md is not a regular file.')
const brokenLink = (cause: unknown): SkillHostError =>
  new SkillHostError('E_SKILL_SOURCE_FAILED', 'SKILL.md is a broken or looping symlink.', { cause })
const escapingLink = (): SkillHostError =>
  new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    'SKILL.md is a symlink that leads outside the skill folder.',
  )

function tooManyFiles(limits: SkillSourceLimits): SkillHostError {
  return new SkillHostError(
    'E_SKILL_SOURCE_TOO_LARGE',
    `The skill has more than ${limits.maxFilesPerSkill} files; split it or raise limits.maxFilesPerSkill.`,
  )
}

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
      const absPath = childPath(abs, entry.name)
      const isSkillMd = relPath === 'SKILL.md'
      if (entry.isDirectory()) {
        if (isSkillMd) throw notRegular()
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
      } else if (isSkillMd) throw notRegular()
      else warnings.push(`${relPath} is not a regular file; ignored`)
    }
    await Promise.all(stats)
    if (files.size > limits.maxFilesPerSkill) throw tooManyFiles(limits)
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
      if (isSkillMd) throw brokenLink(cause)
      warnings.push(`${rel} is a broken or looping symlink; ignored`)
      return
    }
    if (!insideOf(await realDir!, target)) {
      if (isSkillMd) throw escapingLink()
      warnings.push(`${rel} is a symlink that leads outside the skill folder; ignored`)
    } else if (s.isFile()) add(rel, target, s)
    else if (isSkillMd) throw notRegular()
    else warnings.push(`${rel} is a symlink to a folder; not followed`)
  }
}

/**
 * `scanSkillFolder` with direct synchronous calls: the same walk, checks,
 * warnings, errors and hash, without a promise per file.
 */
export function scanSkillFolderSync(
  dir: string,
  limits: SkillSourceLimits,
  fs: SyncSkillFs,
  top?: readonly Dirent[],
  known?: Map<string, SkillFileEntry>,
): SkillFolderScan {
  // `known` holds only entries this scan would add itself; it becomes `files`.
  const files = known ?? new Map<string, SkillFileEntry>()
  const warnings: string[] = []
  let realDir: string | undefined
  const pending: [rel: string, abs: string, depth: number, entries?: readonly Dirent[]][] = [
    ['', dir, 0, top],
  ]
  while (pending.length > 0) {
    const [rel, abs, depth, given] = pending.pop()!
    const entries = given ?? fs.readdir(abs)
    for (const entry of entries) {
      const name = entry.name
      const relPath = rel === '' ? name : `${rel}/${name}`
      const absPath = childPath(abs, name)
      const isSkillMd = relPath === 'SKILL.md'
      if (entry.isDirectory()) {
        if (isSkillMd) throw notRegular()
        if (SKIPPED_FOLDERS.has(name)) continue
        if (depth + 1 > limits.maxDepth)
          warnings.push(`${relPath}/ is nested too deep; not searched`)
        else pending.push([relPath, absPath, depth + 1])
      } else if (entry.isFile()) {
        // Each path comes up once, so an entry already present came from `known`.
        if (!known?.has(relPath)) {
          const s = fs.stat(absPath)
          files.set(relPath, { abs: absPath, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino })
        }
      } else if (entry.isSymbolicLink()) {
        let target: string
        let s: Stats
        try {
          target = fs.realpath(absPath)
          s = fs.stat(target)
        } catch (cause) {
          // ELOOP (a symlink loop) and dangling links land here.
          if (isSkillMd) throw brokenLink(cause)
          else warnings.push(`${relPath} is a broken or looping symlink; ignored`)
          continue
        }
        realDir ??= fs.realpath(dir)
        if (!insideOf(realDir, target)) {
          if (isSkillMd) throw escapingLink()
          else warnings.push(`${relPath} is a symlink that leads outside the skill folder; ignored`)
        } else if (s.isFile())
          files.set(relPath, { abs: target, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino })
        else if (isSkillMd) throw notRegular()
        else warnings.push(`${relPath} is a symlink to a folder; not followed`)
      } else if (isSkillMd) throw notRegular()
      else warnings.push(`${relPath} is not a regular file; ignored`)
    }
    if (files.size > limits.maxFilesPerSkill) throw tooManyFiles(limits)
  }
  return { files, hash: hashFiles(files), warnings }
}

// One-shot hashing (Node >= 20.12) is about 3x cheaper than a Hash object.
const oneShotHash = (crypto as { hash?: (alg: string, data: string, enc: 'base64url') => string })
  .hash

/** A short digest of relative paths, sizes, mtimes and inodes, in path order. */
export function hashFiles(files: ReadonlyMap<string, SkillFileEntry>): string {
  let text = ''
  const rels = files.size === 1 ? files.keys() : [...files.keys()].sort()
  for (const rel of rels) {
    const f = files.get(rel)!
    text += `${rel}\0${f.size}\0${f.mtimeMs}\0${f.ino}\n`
  }
  const digest = oneShotHash
    ? oneShotHash('sha1', text, 'base64url')
    : crypto.createHash('sha1').update(text).digest('base64url')
  return digest.slice(0, 16)
}
