import { lstat, readdir, readFile } from 'node:fs/promises'
import { constants as osConstants } from 'node:os'
import { isAbsolute, join, posix } from 'node:path'
import { escapeLine, quoteName, SkillHostError } from '../../common/index.js'
import type { SessionWorkspace } from '../../tiers/scripts/index.js'
import { copyOut, type FileSeen, type ScriptRunResult } from '../../tiers/scripts/internal.js'
import { UsageError } from '../shared/parse-args.js'

// `skillhost run` without --workspace works where the user is: the files the
// command line names (the carried files) are put into the private /work
// before the call, and what the script made or changed there is copied back
// afterwards (through the door, `copyOut`). The
// user's folder itself is never mounted, so a script sees only what was named.

/** A file of the current folder named among the script's arguments. */
interface NamedFile {
  readonly path: string
  /** What the file was when copied in: an update is copied back only onto the same file, unchanged. */
  readonly seen: FileSeen
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

/** The carried files of one run: what it moved between the current folder and its private workspace. */
export interface CarriedFiles {
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
export const CARRIED_FILES_LIMITS = Object.freeze({ files: 2_000, bytes: 64 * 1024 * 1024 })

/**
 * The regular files under the folder `rel` of `cwd`, each with what it was
 * when seen, added to `named`: symlinks and other non-regular entries are
 * left out (never followed), and past `CARRIED_FILES_LIMITS` the run is a
 * usage error pointing to `--workspace` rather than carrying a part.
 */
async function addFolder(
  cwd: string,
  rel: string,
  named: Map<string, NamedFile>,
  total: { bytes: number },
): Promise<void> {
  const entries = await readdir(join(cwd, rel), { withFileTypes: true })
  // Any order: the limits hold for the whole folder, and it is carried whole or not at all.
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
    if (named.size >= CARRIED_FILES_LIMITS.files || total.bytes > CARRIED_FILES_LIMITS.bytes)
      throw new UsageError(
        `the folders named hold more than ${CARRIED_FILES_LIMITS.files} files or ${CARRIED_FILES_LIMITS.bytes / 1024 / 1024} MiB; give --workspace ${quoteName(rel.split('/')[0]!)} to run in a folder itself`,
      )
    named.set(path, { path, seen: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } })
  }
}

/**
 * The carried files for the script arguments `args` run from `cwd`: every
 * argument that is a relative path to a regular file there is an input, and
 * one that names a folder brings its regular files (within
 * `CARRIED_FILES_LIMITS`); symlinks are never followed. Nothing is read
 * or written yet.
 */
export async function carriedFiles(cwd: string, args: readonly unknown[]): Promise<CarriedFiles> {
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
      const items = (result.workspace?.changes ?? [])
        .filter((c) => c.change !== 'deleted')
        .map((c) => {
          const input = inputs.includes(c.path) ? named.get(c.path) : undefined
          return { path: c.path, kind: c.kind, ...(input && { replaces: input.seen }) }
        })
      const why = stoppedReason(result)
      // The one door out: names, bounds, links and descriptors are its rules, not this file's.
      const report = await copyOut(
        cwd,
        items,
        { read: (path) => workspace.get(path) },
        { limits: CARRIED_FILES_LIMITS, ...(why && { stopped: why }) },
      )
      copied.push(...report.copied)
      notCopied.push(...report.refused)
    },
  }
}

/** Exit statuses a shell gives when a limit's signal ended its child (`128 + N`). */
const LIMIT_SIGNALS: ReadonlyMap<number, string> = new Map(
  (['SIGKILL', 'SIGXCPU', 'SIGXFSZ'] as const).map((name) => [
    128 + osConstants.signals[name],
    name,
  ]),
)

/**
 * Why a call did not end on its own (its deadline, the workspace cap, a
 * signal, or a status that says a limit's signal ended it: SIGKILL, SIGXCPU,
 * SIGXFSZ), or undefined: from such a call nothing is copied back, as
 * half-written outputs would land as if whole.
 */
function stoppedReason(result: ScriptRunResult): string | undefined {
  const limit = typeof result.exitCode !== 'number' ? undefined : LIMIT_SIGNALS.get(result.exitCode)
  const stop = result.timedOut
    ? 'killed at its deadline'
    : result.workspace?.overCap
      ? 'killed past the workspace cap'
      : typeof result.signal === 'string'
        ? `killed by ${result.signal}`
        : limit !== undefined
          ? `ended by ${limit} (exit status ${result.exitCode}), a limit's signal`
          : undefined
  return stop && `the call was ${stop}, so nothing was copied`
}

/** One stderr line per file moved back or left behind, names quoted (`quoteName`). */
export function carriedLines(carried: CarriedFiles): string {
  const lines = carried.copied.map((c) => `${c.change}: ${quoteName(c.path)}\n`)
  for (const n of carried.notCopied) {
    lines.push(`not copied: ${quoteName(n.path)} (${escapeLine(n.reason)}; it was in /work only)\n`)
  }
  return lines.join('')
}
