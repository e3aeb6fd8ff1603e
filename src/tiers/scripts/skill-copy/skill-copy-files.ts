import { lstat, readdir, readFile, realpath } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { isPathInside } from '../policy/policy.js'
import type { WorkspaceFile, WorkspaceRef } from '../sandbox/types.js'

/**
 * The part of a `SkillSource` that making a skill copy needs. (`Workspace…`
 * in the public names of this folder is the reference documents' word for
 * the skill copy; the session's `/work` is the workspace everywhere else.)
 */
export interface WorkspaceFileSource {
  list?(ref: WorkspaceRef): Promise<readonly string[]>
  read(ref: WorkspaceRef, path?: string): Promise<ReadableStream<Uint8Array>>
  snapshot?(ref: WorkspaceRef): Promise<{
    readonly paths: readonly string[]
    read(path: string): Promise<Uint8Array>
    manifest?(): Promise<Uint8Array>
  }>
}

/**
 * The files of a skill, each read lazily. From a source's `snapshot` when it
 * has one (one scan for all files, each read checked against it: linear in
 * the file count), else from `list` and `source.read(ref, path)`. A source
 * with neither ships no files besides its body. SKILL.md comes along when the
 * snapshot offers it (`manifest`): a script may read its own SKILL.md, as it
 * can in the skill's folder on disk.
 */
export async function filesFromSource(
  source: WorkspaceFileSource,
  ref: WorkspaceRef,
): Promise<WorkspaceFile[]> {
  if (source.snapshot !== undefined) {
    const snap = await source.snapshot(ref)
    const files = snap.paths.map((path) => ({ path, read: () => snap.read(path) }))
    const manifest = snap.manifest?.bind(snap)
    if (manifest !== undefined && !snap.paths.includes('SKILL.md'))
      files.push({ path: 'SKILL.md', read: manifest })
    return files
  }
  const paths = source.list === undefined ? [] : await source.list(ref)
  return paths.map((path) => ({ path, read: () => source.read(ref, path) }))
}

/** A symlink `filesFromDirectory` left out, and why. */
export interface SkippedLink {
  readonly path: string
  readonly reason: 'outside' | 'dangling' | 'not-a-file'
}

/**
 * Every regular file below `dir`, as files of a skill copy with relative `/`
 * paths. Directories are walked without following symlinks. A symlink is
 * included (as the bytes of its target) only when its target resolves to a
 * regular file inside `dir`; one that points outside, dangles or names a
 * directory is skipped and reported to `onSkipped` — it is never followed out.
 */
export async function filesFromDirectory(
  dir: string,
  options: { onSkipped?: (link: SkippedLink) => void; maxDepth?: number } = {},
): Promise<WorkspaceFile[]> {
  const root = await realpath(dir)
  const files: WorkspaceFile[] = []
  const maxDepth = options.maxDepth ?? 16
  const walk = async (current: string, depth: number): Promise<void> => {
    if (depth > maxDepth) return
    const entries = await readdir(current, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const full = join(current, entry.name)
      const rel = relative(root, full).split(sep).join('/')
      if (entry.isDirectory()) {
        await walk(full, depth + 1)
      } else if (entry.isFile()) {
        files.push({ path: rel, read: async () => new Uint8Array(await readFile(full)) })
      } else if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined)
        if (target === undefined) options.onSkipped?.({ path: rel, reason: 'dangling' })
        else if (!isPathInside(target, root)) options.onSkipped?.({ path: rel, reason: 'outside' })
        else if (!(await lstat(target)).isFile())
          options.onSkipped?.({ path: rel, reason: 'not-a-file' })
        else files.push({ path: rel, read: async () => new Uint8Array(await readFile(target)) })
      }
    }
  }
  await walk(root, 0)
  return files
}
