import { constants } from 'node:fs'
import { type FileHandle, mkdir, realpath } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { openChildDir, openEntry, openRoot } from './beneath.js'
import {
  type DoorRefusal,
  type FileSeen,
  type OutItem,
  type OutSource,
  readOut,
} from './read-out.js'
import { isGitDirShape, vcsIndirections, vcsIndirectionsAbove } from './vcs-indirections.js'

export type { DoorRefusal, FileSeen, OutItem, OutSource } from './read-out.js'

/** The most files and bytes one copy out may write; past either, nothing is written. */
export interface CopyOutLimits {
  readonly files: number
  readonly bytes: number
}

/** What one copy out did, item by item. */
export interface CopyOutReport {
  readonly copied: { readonly path: string; readonly change: 'output' | 'updated' }[]
  readonly refused: DoorRefusal[]
}

/** Options of `copyOut`. */
export interface CopyOutOptions {
  readonly limits: CopyOutLimits
  /**
   * Why the call did not end on its own (killed at a deadline or a cap), if
   * it did not: then nothing at all is copied, and every item is listed.
   */
  readonly stopped?: string
}

/**
 * The door's way out into a host folder: writes `items` (read from
 * `source`) below `destination`, a folder the host chose. Each item is
 * judged alone and a refusal never stops the others: the door's item rules
 * (`readOut`: names, kinds, hard links, bounds), then a path inside a
 * folder git reads through a pointer (`vcsIndirections`) or shaped like a
 * git directory. Past `limits` (files, bytes, counted as written) or after a
 * stopped call nothing is written, and every item says why. Writes go
 * through held folder descriptors, never through a symlink: a new file only
 * where nothing exists (`O_EXCL`), an update only onto the very file it
 * replaces, unchanged (checked on the opened descriptor).
 */
export async function copyOut(
  destination: string,
  items: readonly OutItem[],
  source: OutSource,
  options: CopyOutOptions,
): Promise<CopyOutReport> {
  const report: CopyOutReport = { copied: [], refused: [] }
  if (options.stopped !== undefined) {
    for (const item of items) report.refused.push({ path: item.path, reason: options.stopped })
    return report
  }
  const { files, bytes: most } = options.limits
  const bound = `copy-back takes at most ${files} files and ${most / 1024 / 1024} MiB and this call made more, so nothing was copied`
  const ready: { item: OutItem; bytes: Uint8Array }[] = []
  const judged = await readOut(items, source, { limits: options.limits, wholeOrNothing: bound })
  for (const r of judged)
    if (r.refused === undefined) ready.push(r)
    else report.refused.push({ path: r.item.path, reason: r.refused })
  if (ready.length === 0) return report
  const dest = await realpath(destination)
  const pointed = await resolvedAll(await vcsIndirectionsAbove(dest))
  const root = await openRoot(dest)
  try {
    for (const { item, bytes } of ready) {
      const outcome = await writeItem(root, dest, item, bytes, pointed).catch(
        (err: NodeJS.ErrnoException) => `it could not be written here (${err.code ?? 'error'})`,
      )
      if (outcome === true)
        report.copied.push({ path: item.path, change: item.replaces ? 'updated' : 'output' })
      else report.refused.push({ path: item.path, reason: outcome })
    }
  } finally {
    await root.close()
  }
  return report
}

async function resolvedAll(paths: readonly string[]): Promise<string[]> {
  return Promise.all(paths.map((p) => realpath(p).catch(() => p)))
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'))
}

const POINTED = 'git reads that folder as repository state (a .git file or commondir points there)'

/** Writes one item below the held root; true, or why not. */
async function writeItem(
  root: FileHandle,
  dest: string,
  item: OutItem,
  bytes: Uint8Array,
  pointed: readonly string[],
): Promise<true | string> {
  const parts = item.path.split('/')
  const name = parts.pop() as string
  const target = join(dest, item.path)
  if (pointed.some((p) => inside(target, p))) return POINTED
  const walked = await openWay(root, dest, parts, target)
  if (typeof walked === 'string') return walked
  try {
    return await writeFileAt(walked, name, item.replaces, bytes)
  } finally {
    if (walked !== root) await walked.close()
  }
}

/**
 * The folder `parts` below `root`, by descriptor, made where missing:
 * refused through a symlink or a non-folder, through a folder shaped like a
 * git directory, or when a `.git` file on the way points over `target`.
 */
async function openWay(
  root: FileHandle,
  dest: string,
  parts: readonly string[],
  target: string,
): Promise<FileHandle | string> {
  let current = root
  try {
    for (const [i, part] of parts.entries()) {
      let next = await openChildDir(current, part).catch((err: NodeJS.ErrnoException) => err)
      let made = false
      if (next instanceof Error && next.code === 'ENOENT') {
        await mkdir(`/proc/self/fd/${current.fd}/${part}`, 0o777)
        next = await openChildDir(current, part).catch((err: NodeJS.ErrnoException) => err)
        made = true
      }
      if (next instanceof Error) {
        // A symlink opened O_DIRECTORY|O_NOFOLLOW fails with either code.
        if (next.code === 'ELOOP' || next.code === 'ENOTDIR')
          return 'a folder on its way here is a symlink or not a folder'
        throw next
      }
      if (current !== root) await current.close()
      current = next
      if (made) continue
      if (await isGitDirShape(current)) return "a folder on its way here is a repository's state"
      const here = join(dest, ...parts.slice(0, i + 1))
      const pointers = await resolvedAll(await vcsIndirections(here))
      if (pointers.some((p) => inside(target, p))) return POINTED
    }
    const held = current
    current = root
    return held
  } finally {
    if (current !== root) await current.close().catch(() => undefined)
  }
}

/** Creates `name` in `dir` (only where nothing exists) or updates the very file `replaces` saw. */
async function writeFileAt(
  dir: FileHandle,
  name: string,
  replaces: FileSeen | undefined,
  bytes: Uint8Array,
): Promise<true | string> {
  const flags = constants.O_WRONLY | (replaces ? 0 : constants.O_CREAT | constants.O_EXCL)
  const handle = await openEntry(dir, name, flags, 0o666).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST') return 'a file of that name exists here'
    if (err.code === 'ENOENT') return 'the file here changed while the script ran'
    if (err.code === 'ELOOP') return 'a symlink of that name is here'
    throw err
  })
  if (typeof handle === 'string') return handle
  try {
    const st = await handle.stat()
    if (
      replaces !== undefined &&
      (!st.isFile() ||
        st.ino !== replaces.ino ||
        st.size !== replaces.size ||
        st.mtimeMs !== replaces.mtimeMs)
    )
      return 'the file here changed while the script ran'
    if (!st.isFile()) return 'not a regular file here'
    if (replaces !== undefined) await handle.truncate(0)
    await handle.writeFile(bytes)
    return true
  } finally {
    await handle.close()
  }
}
