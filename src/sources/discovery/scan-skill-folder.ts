import type { Stats } from 'node:fs'
import { sep } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import { OPENAI_YAML_FILE } from '../../manifest/parse-openai-yaml.js'
import { SKILL_SIDECAR_FILE } from '../../manifest/parse-skill-sidecar.js'
import type { SkillSourceLimits } from '../source-limits.js'
import {
  allSteps,
  type FsSteps,
  readCappedStep,
  readdirStep,
  resolveStep,
  runAsync,
  statCheckedStep,
  statStep,
} from './fs-steps.js'
import { hashFiles } from './hash-files.js'
import { canonicalDir, changedWarning, listSubfolder, type SkillPlace } from './list-subfolder.js'
import {
  asyncSkillFs,
  type CappedFile,
  childPath,
  type DirEntry,
  type ResolvedPath,
} from './skill-fs.js'

/**
 * One regular file of a skill, as seen when the folder was scanned. Its path
 * is not kept (a catalog holds every skill's files): `scannedFilePath` gives
 * it from the scan's folder and the file's relative path.
 */
export interface SkillFileEntry {
  /** Where a symlink inside the folder leads (its real path, inside the folder); absent for a plain file. */
  readonly target?: string
  readonly size: number
  readonly mtimeMs: number
  /** Kept because `utimes` can restore an mtime but never a ctime (see `FileIdentity`). */
  readonly ctimeMs: number
  readonly ino: number
}

/** What a skill folder holds: its files by normalized relative path, and a hash of their stats. */
export interface SkillFolderScan {
  /** The folder scanned, as given (not resolved). */
  readonly dir: string
  readonly files: ReadonlyMap<string, SkillFileEntry>
  /**
   * Changes whenever a file is added, removed, renamed, resized, rewritten
   * or replaced, even when its mtime is put back (the ctime moves).
   */
  readonly hash: string
  /** Entries left out (symlinks leaving the folder, FIFOs, symlinked folders), model-safe. */
  readonly warnings: readonly string[]
  /**
   * Subfolders (relative paths, in scan order) holding a `SKILL.md` of their
   * own: skills nested inside this one, which discovery does not serve.
   */
  readonly nested: readonly string[]
  /**
   * Every folder the scan listed, relative (`''`, the skill folder, first):
   * what a watcher must observe to see any change to the skill
   * (`scannedFolders` gives them absolute). Relative, so a catalog holding
   * every skill's scan does not hold each folder's full path.
   */
  readonly folders: readonly string[]
}

const NONE: readonly string[] = Object.freeze([])

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

/** True when `target` is `root` or lies below it (both canonical paths). */
export function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * The entry a lean scan (`scanSkillFolderSteps`'s `lean`) gives a file it did
 * not stat: in the file list and the file count, blind in the version hash,
 * and never read (no file has inode 0, so a read's identity check refuses it).
 */
const UNSTATTED: SkillFileEntry = Object.freeze({ size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 })

/** The files the loader reads from a skill without a sidecar: all a lean scan stats. */
const LOADER_READS: ReadonlySet<string> = new Set(['SKILL.md', OPENAI_YAML_FILE])

/** A directory entry's name order: the same whatever order `readdir` returns. */
const byName = (a: DirEntry, b: DirEntry): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0

/** `entries` in name order; the array itself when already sorted (the common case). */
export function inNameOrder(entries: readonly DirEntry[]): readonly DirEntry[] {
  for (let i = 1; i < entries.length; i++) {
    if (byName(entries[i - 1]!, entries[i]!) > 0) return [...entries].sort(byName)
  }
  return entries
}

/**
 * What one entry contributes, kept in entry order until its folder's calls
 * are answered. `item`: the file's place in its checked folder's one
 * `statChecked` call (`FolderPlan.checkedCall`); its `call` is then `NO_CALL`.
 */
type Slot =
  | { readonly warning: string }
  | { readonly rel: string; readonly call: number; readonly link: boolean; readonly item?: number }

/** A slot's `call` when a lean scan makes none for the file (`UNSTATTED`). */
const NO_CALL = -1

type Resolved = ResolvedPath | { readonly cause: unknown }

/** A symlink's target and the stat of what is there, from one descriptor (`SkillFs.resolve`). */
function* resolveLink(abs: string): FsSteps<Resolved> {
  try {
    return yield* resolveStep(abs)
  } catch (cause) {
    // ELOOP (a symlink loop) and dangling links land here.
    return { cause }
  }
}

const entryOf = (s: Stats, target?: string): SkillFileEntry =>
  target === undefined
    ? { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino }
    : { target, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino }

/** The folders a scan listed, absolute: `dir` first. */
export function scannedFolders(scan: SkillFolderScan): string[] {
  return scan.folders.map((rel) => (rel === '' ? scan.dir : childPath(scan.dir, rel)))
}

/**
 * Where a scanned file is read: a symlink's target, else its place below the
 * scanned folder. Every read checks the file it opens against the entry's
 * identity, so a path swapped since the scan fails the read.
 */
export function scannedFilePath(scan: SkillFolderScan, rel: string, file: SkillFileEntry): string {
  return file.target ?? childPath(scan.dir, rel)
}

/**
 * Reads the scanned file `rel` (its entry `file`) within `maxBytes`: at
 * `scannedFilePath`, refused unless the file opened is the one the scan saw
 * (`E_SKILL_SOURCE_FAILED`). `transient`: the bytes may sit in a reused
 * buffer, so the caller must be done with them before the next read.
 */
export function readScannedStep(
  scan: SkillFolderScan,
  rel: string,
  file: SkillFileEntry,
  maxBytes: number,
  transient?: boolean,
): FsSteps<CappedFile> {
  return readCappedStep(scannedFilePath(scan, rel, file), maxBytes, rel, file, transient)
}

/** `readScannedStep` through the thread pool: the bytes alone. */
export async function readScanned(
  scan: SkillFolderScan,
  rel: string,
  file: SkillFileEntry,
  maxBytes: number,
): Promise<Uint8Array> {
  return (await runAsync(readScannedStep(scan, rel, file, maxBytes), asyncSkillFs)).bytes
}

/** What one folder's entries ask for: a slot each (in entry order), the calls to make, the subfolders to search. */
interface FolderPlan {
  readonly slots: Slot[]
  readonly calls: FsSteps<Stats | Stats[] | undefined | Resolved>[]
  readonly subfolders: [rel: string, abs: string, depth: number][]
  /** The index in `calls` of a checked folder's `statChecked` call, if it makes one. */
  checkedCall?: number
}

/** A subfolder, with the canonical path it must be at (`real`, or `AT_SKILL`), listed through `readdirChecked`. */
interface Checked {
  readonly real: string | null
  /** The files to stat through the same check (one `statChecked` call), in slot order. */
  readonly names: string[]
}

/**
 * Sorts one folder's entries (the folder `rel` at `abs`, `depth` below the
 * skill) into warnings, the stat or link calls to make, and subfolders;
 * records nested `SKILL.md` folders in `seen.nested` and skips files
 * `seen.known` already holds. In a `checked` subfolder, files are stat'd
 * through the folder's proved descriptor (`checked.names`), never by path.
 * The first stage of `scanSkillFolderSteps`: no filesystem call is made here.
 */
function classifyEntries(
  entries: readonly DirEntry[],
  rel: string,
  abs: string,
  depth: number,
  limits: SkillSourceLimits,
  seen: {
    readonly known: Map<string, SkillFileEntry> | undefined
    readonly nested: string[]
    readonly lean: boolean
  },
  checked?: Checked,
): FolderPlan {
  const plan: FolderPlan = { slots: [], calls: [], subfolders: [] }
  const { slots, calls } = plan
  for (const entry of entries) {
    const name = entry.name
    const relPath = rel === '' ? name : `${rel}/${name}`
    const absPath = childPath(abs, name)
    if (entry.isDirectory()) {
      if (relPath === 'SKILL.md') throw notRegular()
      if (SKIPPED_FOLDERS.has(name)) continue
      if (depth + 1 > limits.maxDepth)
        slots.push({ warning: `${relPath}/ is nested too deep; not searched` })
      else plan.subfolders.push([relPath, absPath, depth + 1])
    } else if (entry.isFile()) {
      if (name === 'SKILL.md' && rel !== '') seen.nested.push(rel)
      if (seen.known?.has(relPath)) continue
      if (seen.lean && !LOADER_READS.has(relPath)) {
        slots.push({ rel: relPath, call: NO_CALL, link: false })
        continue
      }
      if (checked) {
        slots.push({ rel: relPath, call: NO_CALL, link: false, item: checked.names.length })
        checked.names.push(name)
        continue
      }
      slots.push({ rel: relPath, call: calls.length, link: false })
      calls.push(statStep(absPath))
    } else if (entry.isSymbolicLink()) {
      slots.push({ rel: relPath, call: calls.length, link: true })
      calls.push(resolveLink(absPath))
    } else if (relPath === 'SKILL.md') throw notRegular()
    else slots.push({ warning: `${relPath} is not a regular file; ignored` })
  }
  if (checked && checked.names.length > 0) {
    // One call for the folder's files, made with the others (concurrently when async).
    plan.checkedCall = calls.length
    calls.push(statCheckedStep(abs, checked.real, checked.names))
  }
  return plan
}

/**
 * What a symlink entry `rel` contributes once resolved: a file inside the
 * skill folder (canonical `realDir`) is kept with its target; anything else
 * is a warning, or an error for `SKILL.md` itself.
 */
function takeLink(
  rel: string,
  link: Resolved,
  realDir: string,
  into: { files: Map<string, SkillFileEntry>; nested: string[]; warnings: string[] },
): void {
  const isSkillMd = rel === 'SKILL.md'
  if ('cause' in link) {
    if (isSkillMd) throw brokenLink(link.cause)
    into.warnings.push(`${rel} is a broken or looping symlink; ignored`)
  } else if (!isInside(realDir, link.target)) {
    if (isSkillMd) throw escapingLink()
    into.warnings.push(`${rel} is a symlink that leads outside the skill folder; ignored`)
  } else if (link.s.isFile()) {
    into.files.set(rel, entryOf(link.s, link.target))
    if (rel.endsWith('/SKILL.md')) into.nested.push(rel.slice(0, -9))
  } else if (isSkillMd) throw notRegular()
  else into.warnings.push(`${rel} is a symlink to a folder; not followed`)
}

/**
 * Lists every regular file of the skill folder `dir` with its size, mtime,
 * ctime and inode, without following a symlink out of the folder or into a folder, so
 * loops cannot occur. Each subfolder is listed, and its files stat'd, only
 * through a descriptor proved to be the folder its parent's listing named
 * (`listSubfolder`); one swapped meanwhile is left out with a warning, so no
 * file from elsewhere enters `files` (docs/security.md). `SKILL.md` itself must be a regular file inside the
 * folder: otherwise `E_SKILL_SOURCE_PATH_REJECTED` (escaping symlink) or
 * `E_SKILL_SOURCE_FAILED` (loop, FIFO, folder). More than `maxFilesPerSkill`
 * files fails with `E_SKILL_SOURCE_TOO_LARGE`. `top` may pass the folder's
 * already-read entries to save a `readdir`, and `known` stats of regular
 * files the caller already took (from an open descriptor) to save a `stat`;
 * `known` becomes the scan's `files`. Entries are taken in name order, folders
 * depth-first after their own files, and the calls of one folder are made
 * together (concurrently when async), their results kept in entry order: the
 * warnings come out the same for either driver and any `readdir` order.
 * `lean` (a one-shot check such as `skillhost validate`): in a folder with no
 * `skillhost.yaml`, only the files the loader reads (SKILL.md,
 * agents/openai.yaml) are stat'd; every other regular file is listed and
 * counted as `UNSTATTED`, so the hash misses its changes and reads of it fail.
 * The decision depends on the listing alone, so a rescan with the same `lean`
 * gives the same hash.
 */
export function* scanSkillFolderSteps(
  dir: string,
  limits: SkillSourceLimits,
  top?: readonly DirEntry[],
  known?: Map<string, SkillFileEntry>,
  lean = false,
): FsSteps<SkillFolderScan> {
  // Each path comes up once, so an entry already present came from `known`.
  const files = known ?? new Map<string, SkillFileEntry>()
  const warnings: string[] = []
  const nested: string[] = []
  const folders: string[] = []
  const place: SkillPlace = { base: dir, rebased: false }
  const pending: [rel: string, abs: string, depth: number, entries?: readonly DirEntry[]][] = [
    ['', dir, 0, top],
  ]
  while (pending.length > 0) {
    const [rel, abs, depth, given] = pending.pop()!
    let listed: readonly DirEntry[] | undefined
    let real: string | null | undefined
    if (rel === '') listed = given ?? (yield* readdirStep(abs))
    // A subfolder is used only as the folder its parent's listing named (`listSubfolder`).
    else [listed, real] = yield* listSubfolder(dir, abs, rel, place)
    if (listed === undefined) {
      warnings.push(changedWarning(rel))
      continue
    }
    const entries = inNameOrder(listed)
    // A sidecar declares tool files its descriptor reads: its skill is scanned in full.
    if (rel === '') lean &&= !entries.some((e) => e.name === SKILL_SIDECAR_FILE)
    const seen = { known, nested, lean }
    const checked = real === undefined ? undefined : { real, names: [] }
    const plan = classifyEntries(entries, rel, abs, depth, limits, seen, checked)
    const { slots, calls, subfolders } = plan
    // One round of calls per folder (concurrent when async), answered in entry order.
    const results =
      calls.length === 0 ? [] : calls.length === 1 ? [yield* calls[0]!] : yield* allSteps(calls)
    const stats =
      plan.checkedCall === undefined ? [] : (results[plan.checkedCall] as Stats[] | undefined)
    if (stats === undefined) {
      warnings.push(changedWarning(rel))
      continue
    }
    folders.push(rel)
    for (const slot of slots) {
      if ('warning' in slot) {
        warnings.push(slot.warning)
        continue
      }
      if (!slot.link) {
        const s =
          slot.item === undefined ? (results[slot.call] as Stats | undefined) : stats[slot.item]
        files.set(slot.rel, s === undefined ? UNSTATTED : entryOf(s))
        continue
      }
      const link = results[slot.call] as Resolved
      // Resolved only once a link resolves (a failed one is judged without it): a folder without links costs no call.
      const realDir = 'target' in link ? yield* canonicalDir(dir, place) : ''
      takeLink(slot.rel, link, realDir, { files, nested, warnings })
    }
    // Pushed in reverse so they are searched in name order.
    for (let i = subfolders.length - 1; i >= 0; i--) pending.push(subfolders[i]!)
    if (files.size > limits.maxFilesPerSkill) throw tooManyFiles(limits)
  }
  return {
    dir,
    files,
    hash: hashFiles(files),
    warnings,
    nested: nested.length > 0 ? nested : NONE,
    folders,
  }
}

/** `scanSkillFolderSteps` through the thread pool: the rescan that proves a ref current (`lean` as the walk's). */
export function scanSkillFolder(
  dir: string,
  limits: SkillSourceLimits,
  lean = false,
): Promise<SkillFolderScan> {
  return runAsync(scanSkillFolderSteps(dir, limits, undefined, undefined, lean), asyncSkillFs)
}
