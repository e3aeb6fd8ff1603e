import { constants } from 'node:fs'
import { lstat, mkdir, open, readdir, readFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, posix } from 'node:path'
import { escapeLine, quoteName, SkillHostError } from '../../common/index.js'
import type { SessionWorkspace } from '../../tiers/scripts/index.js'
import type { ScriptRunResult } from '../../tiers/scripts/internal.js'
import { UsageError } from '../shared/parse-args.js'

// `skillhost run` without --workspace works where the user is: the files the
// command line names are copied into the private /work before the call, and
// what the script made or changed there is copied back afterwards. The
// user's folder itself is never mounted, so a script sees only what was named.

/** A file of the current folder named among the script's arguments. */
interface NamedFile {
  readonly path: string
  /** What the file was when copied in: an update is copied back only onto the same file, unchanged. */
  readonly seen: { readonly ino: number; readonly size: number; readonly mtimeMs: number }
}

/** A file copied back into the current folder: a new one (`output`) or a named input the script changed. */
export interface CopiedFile {
  readonly path: string
  readonly change: 'output' | 'updated'
}

/** A file the script made or changed that was left in the workspace, and why. */
export interface NotCopiedFile {
  readonly path: string
  readonly reason: string
}

/** What one run moved between the current folder and its private workspace. */
export interface UserFolderCopy {
  /** Files named on the command line and copied in, by relative path. */
  readonly inputs: readonly string[]
  readonly copied: CopiedFile[]
  readonly notCopied: NotCopiedFile[]
  /** Puts the named files into the workspace (`runScriptOnce`'s `prepare`). */
  prepare(workspace: SessionWorkspace): Promise<void>
  /** Copies created and changed files back (`runScriptOnce`'s `collect`). */
  collect(workspace: SessionWorkspace, result: ScriptRunResult): Promise<void>
}

/** `arg` as a relative path inside the current folder, or undefined (absolute, `..`, a flag, empty). */
function relativeName(arg: string): string | undefined {
  if (arg === '' || arg.startsWith('-') || isAbsolute(arg) || arg.includes('\0')) return undefined
  const rel = posix.normalize(arg.replaceAll('\\', '/')).replace(/\/+$/, '')
  if (rel === '.' || rel === '..' || rel.startsWith('../')) return undefined
  return rel
}

/** The most files and bytes the named folders of one run bring into /work. */
export const USER_FOLDER_COPY_LIMITS = Object.freeze({ files: 2_000, bytes: 64 * 1024 * 1024 })

/**
 * The regular files under the folder `rel` of `cwd`, each with what it was
 * when seen, added to `named`: symlinks and other non-regular entries are
 * left out (never followed), and past `USER_FOLDER_COPY_LIMITS` the run is a
 * usage error pointing to `--workspace` rather than a partial copy.
 */
async function addFolder(
  cwd: string,
  rel: string,
  named: Map<string, NamedFile>,
  total: { bytes: number },
): Promise<void> {
  const entries = await readdir(join(cwd, rel), { withFileTypes: true })
  // Any order: the limits hold for the whole folder, and a copy is all or nothing.
  for (const entry of entries) {
    const path = `${rel}/${entry.name}`
    if (entry.isDirectory()) {
      await addFolder(cwd, path, named, total)
      continue
    }
    if (!entry.isFile() || named.has(path)) continue
    const st = await lstat(join(cwd, path)).catch(() => undefined)
    if (!st?.isFile()) continue
    total.bytes += st.size
    if (named.size >= USER_FOLDER_COPY_LIMITS.files || total.bytes > USER_FOLDER_COPY_LIMITS.bytes)
      throw new UsageError(
        `the folders named hold more than ${USER_FOLDER_COPY_LIMITS.files} files or ${USER_FOLDER_COPY_LIMITS.bytes / 1024 / 1024} MiB; give --workspace ${quoteName(rel.split('/')[0]!)} to run in a folder itself`,
      )
    named.set(path, { path, seen: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } })
  }
}

/**
 * The copy plan for the script arguments `args` run from `cwd`: every
 * argument that is a relative path to a regular file there is an input, and
 * one that names a folder brings its regular files (within
 * `USER_FOLDER_COPY_LIMITS`); symlinks are never followed. Nothing is read
 * or written yet.
 */
export async function userFolderCopy(
  cwd: string,
  args: readonly unknown[],
): Promise<UserFolderCopy> {
  const named = new Map<string, NamedFile>()
  const total = { bytes: 0 }
  for (const arg of args) {
    if (typeof arg !== 'string') continue
    const rel = relativeName(arg)
    // The user typed these names: their own links on the way are theirs to follow.
    if (rel === undefined || named.has(rel)) continue
    const st = await lstat(join(cwd, rel)).catch(() => undefined)
    if (st?.isDirectory()) await addFolder(cwd, rel, named, total)
    if (!st?.isFile()) continue
    named.set(rel, { path: rel, seen: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } })
  }
  const copied: CopiedFile[] = []
  const notCopied: NotCopiedFile[] = []
  const inputs: string[] = []
  return {
    inputs,
    copied,
    notCopied,
    async prepare(workspace) {
      for (const file of named.values()) {
        try {
          await workspace.put(file.path, await readFile(join(cwd, file.path)))
          inputs.push(file.path)
        } catch (err) {
          // A name the workspace refuses (.git/…) stays out; the script finds no such file.
          if (SkillHostError.isInstance(err) && err.code === 'E_SKILL_SOURCE_PATH_REJECTED')
            continue
          throw err
        }
      }
    },
    async collect(workspace, result) {
      for (const change of result.workspace?.changes ?? []) {
        if (change.change === 'deleted') continue
        if (change.kind !== 'file') {
          notCopied.push({ path: change.path, reason: `a ${change.kind}, not a regular file` })
          continue
        }
        const input = inputs.includes(change.path) ? named.get(change.path) : undefined
        const outcome = await copyBack(cwd, change.path, input, workspace)
        if (typeof outcome === 'string') notCopied.push({ path: change.path, reason: outcome })
        else copied.push({ path: change.path, change: input === undefined ? 'output' : 'updated' })
      }
    },
  }
}

/**
 * Writes the workspace's `rel` to `cwd/rel`: a new file only where nothing
 * exists, an update only onto the input it came from while that is unchanged
 * (same inode, size and mtime), so nothing the user made or changed
 * meanwhile is overwritten. Returns why not, or true.
 */
async function copyBack(
  cwd: string,
  rel: string,
  input: NamedFile | undefined,
  workspace: SessionWorkspace,
): Promise<true | string> {
  const target = join(cwd, rel)
  // The script chose the name: never write through a symlink on its way out of this folder.
  if (!(await throughFolders(cwd, rel)))
    return 'a folder on its way here is a symlink or not a folder'
  const now = await lstat(target).catch(() => undefined)
  if (input === undefined && now !== undefined) return 'a file of that name exists here'
  if (
    input !== undefined &&
    (now === undefined ||
      !now.isFile() ||
      now.ino !== input.seen.ino ||
      now.size !== input.seen.size ||
      now.mtimeMs !== input.seen.mtimeMs)
  ) {
    return 'the file here changed while the script ran'
  }
  const { bytes } = await workspace.get(rel)
  const flags =
    constants.O_WRONLY |
    constants.O_NOFOLLOW |
    (input === undefined ? constants.O_CREAT | constants.O_EXCL : constants.O_TRUNC)
  try {
    if (input === undefined) await mkdir(dirname(target), { recursive: true })
    const handle = await open(target, flags, 0o666)
    try {
      await handle.writeFile(bytes)
    } finally {
      await handle.close()
    }
  } catch (err) {
    return `it could not be written here (${(err as NodeJS.ErrnoException).code ?? 'error'})`
  }
  return true
}

/**
 * True when every folder on the way from `cwd` to `rel` (not `rel` itself)
 * is a real folder or does not exist yet: no symlink, so a name leads only
 * below `cwd`.
 */
async function throughFolders(cwd: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1)
  for (let i = 1; i <= parts.length; i++) {
    const st = await lstat(join(cwd, ...parts.slice(0, i))).catch(() => undefined)
    if (st === undefined) return true
    if (!st.isDirectory()) return false
  }
  return true
}

/** One stderr line per file moved back or left behind, names escaped. */
export function copyLines(copy: UserFolderCopy): string {
  const lines = copy.copied.map((c) => `${c.change}: ${escapeLine(c.path)}\n`)
  for (const n of copy.notCopied) {
    lines.push(`not copied: ${escapeLine(n.path)} (${n.reason}; it was in /work only)\n`)
  }
  return lines.join('')
}
