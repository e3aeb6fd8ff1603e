import { SkillHostError } from '../../common/errors.js'
import type { SkillFileManifest } from '../reading/skill-manifest.js'
import { readPluginFiles } from '../reading/skill-plugin.js'
import type { DiscoveredSkill, DiscoveryProgress, SkillProblem, SkillSource } from '../types.js'
import { skillContentDigest } from './skill-digest.js'
import { SKILL_LOCK_VERSION, type SkillLock, type SkillLockEntry } from './skill-lock.js'

/** Options for `lockSkills`. */
export interface LockSkillsOptions {
  /**
   * The `source` recorded for a skill, from its folder's host path; default
   * the host path itself. The CLI writes it relative to the lockfile.
   */
  readonly sourceLabel?: (folder: string, skill: DiscoveredSkill) => string
  /** Receives what discovery reports, and every skill that could not be hashed. */
  readonly report?: (problem: SkillProblem) => void
  /** The discovery's running totals (see `DiscoverOptions.onProgress`). */
  readonly onProgress?: (progress: DiscoveryProgress) => void
  readonly signal?: AbortSignal
}

/** A discovered skill's folder: its location without the trailing `/SKILL.md`. */
const folderOf = (skill: DiscoveredSkill): string =>
  (skill.location ?? skill.id).replace(/[\\/]SKILL\.md$/, '')

/** A source `lockSkills` can pin: one that publishes manifests. */
export type LockableSkillSource = SkillSource & Required<Pick<SkillSource, 'manifest'>>

/**
 * The content digest of a manifest: the source's own when it took one from
 * the same reads (a `FileSystemSkillSource`), else the same digest over
 * every file's bytes read through the manifest, each verified against its
 * listed digest (a remote server's), so the two compare directly.
 */
async function contentDigestOf(
  manifest: SkillFileManifest,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (manifest.contentDigest !== undefined) return manifest.contentDigest
  const bytes = new Map<string, Uint8Array>()
  for (const f of manifest.files)
    bytes.set(f.path, await manifest.read(f.path, signal ? { signal } : {}))
  return skillContentDigest(bytes)
}

/** The digest of the plugin files a skill copy of `skill` carries (see `SkillSnapshot.plugin`); undefined outside a plugin. */
async function pluginDigestOf(
  source: LockableSkillSource,
  skill: DiscoveredSkill,
): Promise<string | undefined> {
  const plugin = await (await source.snapshot?.(skill))?.plugin?.()
  return plugin === undefined ? undefined : (await readPluginFiles(plugin)).digest
}

/**
 * Pins what `source` serves now: discovers it and records, for each skill it
 * serves, the content digest (`skillDigestSteps`), every file's `sha256:`
 * digest and size from the same reads (`SkillSource.manifest`) and where it
 * came from. A source on disk and a skill server serving the same files pin
 * the same entries (but for `source`). Skills the source does not serve (invalid, shadowed, too large)
 * are reported, not pinned; so is a skill whose files cannot be read in full
 * or change while they are hashed. Give a source without a lock: under one,
 * only skills already pinned as they are would be pinned again.
 */
export async function lockSkills(
  source: LockableSkillSource,
  options: LockSkillsOptions = {},
): Promise<SkillLock> {
  const report = options.report ?? (() => undefined)
  const label = options.sourceLabel ?? ((folder: string) => folder)
  const skills = new Map<string, SkillLockEntry>()
  const found: DiscoveredSkill[] = []
  for await (const skill of source.discover({
    report,
    ...(options.signal && { signal: options.signal }),
    ...(options.onProgress && { onProgress: options.onProgress }),
  }))
    found.push(skill)
  for (const skill of found) {
    const folder = folderOf(skill)
    try {
      // One read of every file gives both the content digest and each file's digest.
      const manifest = await source.manifest(
        skill,
        options.signal ? { signal: options.signal } : {},
      )
      const plugin = await pluginDigestOf(source, skill)
      skills.set(skill.id, {
        digest: await contentDigestOf(manifest, options.signal),
        source: label(folder, skill),
        files: manifest.files,
        ...(plugin !== undefined && { plugin: { digest: plugin } }),
      })
    } catch (err) {
      if (!SkillHostError.isInstance(err) || err.code === 'E_ABORTED') throw err
      report({
        location: skill.id,
        hostPath: folder,
        id: skill.id,
        code: err.code,
        message: `Not pinned: ${err.message}`,
        severity: 'error',
      })
    }
  }
  return { lockfileVersion: SKILL_LOCK_VERSION, skills }
}
