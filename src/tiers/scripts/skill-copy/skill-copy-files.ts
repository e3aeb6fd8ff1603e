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
    plugin?(): Promise<
      | {
          readonly skillPath: string
          readonly paths: readonly string[]
          read(path: string): Promise<Uint8Array>
        }
      | undefined
    >
  }>
}

/** What a skill copy is made of: its files, and where the skill sits among them. */
export interface SkillCopyFiles {
  /** Every file to write, relative to the copy's root (the plugin root for a plugin skill). */
  readonly files: WorkspaceFile[]
  /** The skill's own files, relative to the skill folder. */
  readonly skillPaths: readonly string[]
  /** For a skill in a plugin: the skill folder inside the copy (`skills/x`). */
  readonly pluginSkillPath?: string
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
  return (await copyFilesFromSource(source, ref)).files
}

/**
 * `filesFromSource`, and for a skill in a plugin (the snapshot's `plugin`)
 * the plugin's other files too, from the same snapshot: the skill's files go
 * below its `skillPath`, the plugin's at their places, so the copy's root is
 * the plugin root and the skill keeps its relative place in it.
 */
export async function copyFilesFromSource(
  source: WorkspaceFileSource,
  ref: WorkspaceRef,
): Promise<SkillCopyFiles> {
  if (source.snapshot === undefined) {
    const paths = source.list === undefined ? [] : await source.list(ref)
    const files = paths.map((path) => ({ path, read: () => source.read(ref, path) }))
    return { files, skillPaths: paths }
  }
  const snap = await source.snapshot(ref)
  const own = snap.paths.map((path) => ({ path, read: () => snap.read(path) }))
  const manifest = snap.manifest?.bind(snap)
  if (manifest !== undefined && !snap.paths.includes('SKILL.md'))
    own.push({ path: 'SKILL.md', read: manifest })
  const skillPaths = own.map((f) => f.path)
  const plugin = await snap.plugin?.()
  if (plugin === undefined) return { files: own, skillPaths }
  const files = [
    ...plugin.paths.map((path) => ({ path, read: () => plugin.read(path) })),
    ...own.map((f) => ({ path: `${plugin.skillPath}/${f.path}`, read: f.read })),
  ]
  return { files, skillPaths, pluginSkillPath: plugin.skillPath }
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
