import type { Dirent } from 'node:fs'
import { lstat, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** Bounds for `pruneSpoolDirectories`. Either may be omitted; none means nothing is pruned. */
export interface SpoolRetention {
  /** Remove a folder not written for longer than this (by the folder's own mtime). */
  readonly maxAgeMs?: number
  /** Then remove the oldest folders until the rest take at most this many bytes. */
  readonly maxTotalBytes?: number
}

/** Options for `pruneSpoolDirectories`. */
export interface PruneSpoolOptions extends SpoolRetention {
  /** Folder names never removed (spools of sessions still open); asked as each folder is examined. */
  readonly keep?: { has(name: string): boolean }
  /** The current time in ms since the epoch. Default `Date.now()`. */
  readonly now?: number
}

/** What `pruneSpoolDirectories` did. */
export interface PruneSpoolResult {
  /** Names of the folders removed, oldest first. */
  readonly removed: readonly string[]
  /** Bytes the remaining folders hold. */
  readonly keptBytes: number
}

interface Folder {
  readonly name: string
  readonly mtimeMs: number
  readonly bytes: number
}

async function folderBytes(path: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(path, { withFileTypes: true })) {
    // FileSpoolStore folders are flat; anything else is counted by its own size.
    const stats = await lstat(join(path, entry.name)).catch(() => undefined)
    total += stats?.size ?? 0
  }
  return total
}

/**
 * Applies a retention bound to a folder of spool folders (one `FileSpoolStore`
 * directory per session, as `skillhost serve` keeps them): each direct
 * subfolder whose mtime (a store's last write: every put renames into it) is
 * older than `maxAgeMs` is removed, then the oldest are removed until the
 * rest fit in `maxTotalBytes`. Only real directories are touched (a symlink is
 * never followed), folders named in `keep` are skipped, and a missing root is
 * not an error.
 */
export async function pruneSpoolDirectories(
  root: string,
  options: PruneSpoolOptions,
): Promise<PruneSpoolResult> {
  const now = options.now ?? Date.now()
  let entries: Dirent[]
  try {
    entries = await readdir(root, { withFileTypes: true })
  } catch {
    return { removed: [], keptBytes: 0 }
  }
  const folders: Folder[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || options.keep?.has(entry.name)) continue
    const path = join(root, entry.name)
    try {
      const stats = await lstat(path)
      folders.push({ name: entry.name, mtimeMs: stats.mtimeMs, bytes: await folderBytes(path) })
    } catch {
      // Removed meanwhile: nothing to prune.
    }
  }
  folders.sort((a, b) => a.mtimeMs - b.mtimeMs)
  const doomed = new Set<Folder>()
  if (options.maxAgeMs !== undefined) {
    for (const f of folders) if (now - f.mtimeMs > options.maxAgeMs) doomed.add(f)
  }
  if (options.maxTotalBytes !== undefined) {
    let total = folders.reduce((sum, f) => sum + (doomed.has(f) ? 0 : f.bytes), 0)
    for (const f of folders) {
      if (total <= options.maxTotalBytes) break
      if (doomed.has(f)) continue
      doomed.add(f)
      total -= f.bytes
    }
  }
  const removed: string[] = []
  let keptBytes = 0
  for (const f of folders) {
    if (!doomed.has(f)) {
      keptBytes += f.bytes
      continue
    }
    await rm(join(root, f.name), { recursive: true, force: true })
    removed.push(f.name)
  }
  return { removed, keptBytes }
}
