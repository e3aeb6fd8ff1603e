import { lstat } from 'node:fs/promises'
import { dirname, relative, resolve, sep } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import {
  readScanned,
  type SkillFolderScan,
  scanSkillFolder,
} from '../discovery/scan-skill-folder.js'
import { skillContentDigest } from '../lock/skill-digest.js'
import type { SkillSourceLimits } from '../source-limits.js'

/**
 * How many folders above a skill's own are searched for a plugin root: a
 * Claude Code plugin keeps its skills at `skills/<name>`, two levels down;
 * four leaves room for a grouping folder and never walks far.
 */
export const MAX_PLUGIN_DEPTH = 4

/** The file that makes a folder a Claude Code plugin root. */
export const PLUGIN_MANIFEST = '.claude-plugin/plugin.json'

/** A skill's plugin: its root on the host and where the skill sits in it. */
export interface PluginPlace {
  /** The plugin root on the host. */
  readonly dir: string
  /** The skill folder relative to `dir`, `/`-separated (`skills/x`). */
  readonly skillPath: string
}

/** True when `path` is a regular file, and no symlink, as `lstat` sees it now. */
async function plainFile(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => undefined)
  return st?.isFile() === true
}

async function plainDir(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => undefined)
  return st?.isDirectory() === true
}

/**
 * The plugin a skill folder sits in: the nearest folder above `skillDir`, at
 * most `MAX_PLUGIN_DEPTH` up and never above the root (of `roots`) that
 * holds the skill, whose `.claude-plugin/plugin.json` is a regular file in a
 * real folder (a symlink at either step is not a plugin). The deployer's
 * root bounds it: a `plugin.json` above the root given is never seen.
 * Undefined when there is none: the skill then sees nothing above its folder.
 */
export async function findSkillPlugin(
  skillDir: string,
  roots: readonly string[],
): Promise<PluginPlace | undefined> {
  const dir = resolve(skillDir)
  const root = roots
    .map((r) => resolve(r))
    .filter((r) => dir.startsWith(r.endsWith(sep) ? r : r + sep))
    .sort((a, b) => b.length - a.length)[0]
  if (root === undefined) return undefined
  let up = dir
  for (let i = 0; i < MAX_PLUGIN_DEPTH && up !== root; i++) {
    up = dirname(up)
    if (await plainDir(resolve(up, '.claude-plugin'))) {
      if (await plainFile(resolve(up, PLUGIN_MANIFEST))) {
        return { dir: up, skillPath: relative(up, dir).split(sep).join('/') }
      }
    }
  }
  return undefined
}

/** The plugin's files a skill copy carries, read like a skill's (see `SkillSnapshot.plugin`). */
export interface PluginFiles {
  /** The skill folder inside the plugin (`skills/x`). */
  readonly skillPath: string
  /** Every file of the plugin outside the skill's folder, sorted, relative to the plugin root. */
  readonly paths: readonly string[]
  /** The bytes of one of `paths`, checked against the scan. */
  read(path: string): Promise<Uint8Array>
}

/**
 * One scan of the plugin at `place`, bounded like a skill's (`limits`:
 * `maxFilesPerSkill` for the whole plugin, `maxFileBytes` per file, depth;
 * a symlink leading out of the plugin is left out, never followed), and a
 * reader of its files outside the skill's own folder, each read checked
 * against that scan's identity. A plugin over the limits refuses the skill
 * copy (`E_SKILL_SOURCE_TOO_LARGE`), as a skill over them does.
 */
export async function scanSkillPlugin(
  place: PluginPlace,
  limits: SkillSourceLimits,
): Promise<{ readonly scan: SkillFolderScan; readonly files: PluginFiles }> {
  const scan = await scanSkillFolder(place.dir, limits)
  const own = `${place.skillPath}/`
  const paths = [...scan.files.keys()].filter((p) => !p.startsWith(own)).sort()
  const kept = new Set(paths)
  return {
    scan,
    files: {
      skillPath: place.skillPath,
      paths,
      async read(path) {
        const file = kept.has(path) ? scan.files.get(path) : undefined
        if (file === undefined) {
          throw new SkillHostError('E_SKILL_NOT_FOUND', 'The plugin has no such file.')
        }
        return readScanned(scan, path, file, limits.maxFileBytes)
      },
    },
  }
}

/**
 * Every file of `files` read once, and the content digest of those bytes
 * (`skillContentDigest`, the skill digest's rule over the plugin's paths):
 * what a lock pins of a plugin and what a locked copy is checked against.
 */
export async function readPluginFiles(
  files: PluginFiles,
): Promise<{ readonly digest: string; readonly bytes: ReadonlyMap<string, Uint8Array> }> {
  const bytes = new Map<string, Uint8Array>()
  for (const path of files.paths) bytes.set(path, await files.read(path))
  return { digest: skillContentDigest(bytes), bytes }
}

/**
 * The plugin files a locked skill copy may carry: read once and checked as a
 * whole against `pinned` (the lock entry's `plugin.digest`), then served
 * from those very bytes, so nothing read after the check reaches the copy.
 * A plugin the lock does not name, or a pinned one that is gone, is
 * `E_SKILL_NOT_PINNED`, like a changed one.
 */
export async function pinnedPluginFiles(
  id: string,
  files: PluginFiles | undefined,
  pinned: string | undefined,
): Promise<PluginFiles | undefined> {
  if (files === undefined && pinned === undefined) return undefined
  const read = files === undefined ? undefined : await readPluginFiles(files)
  if (files === undefined || read === undefined || read.digest !== pinned) {
    throw new SkillHostError(
      'E_SKILL_NOT_PINNED',
      `Skill "${id}"'s plugin files changed since it was pinned; it will not run until the deployer pins it again with skillhost lock.`,
      { data: { id, reason: 'changed-since-pinned', plugin: true } },
    )
  }
  const { bytes } = read
  return {
    skillPath: files.skillPath,
    paths: files.paths,
    read: async (path) => {
      const b = bytes.get(path)
      if (b === undefined)
        throw new SkillHostError('E_SKILL_NOT_FOUND', 'The plugin has no such file.')
      return b
    },
  }
}
