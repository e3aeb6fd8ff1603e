import { resolve } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { FileSystemSkillSource } from '../sources/file-system-skill-source.js'
import type { DiscoveredSkill, SkillProblem, SkillSource } from '../sources/types.js'

/** What one root yielded: its skills, the problems reported, and a thrown error if discovery failed. */
export interface RootScan {
  readonly root: string
  /** The source that discovered `skills`, for reading their descriptors. */
  readonly source: SkillSource
  readonly skills: readonly DiscoveredSkill[]
  readonly problems: readonly SkillProblem[]
  readonly error?: string
}

/**
 * Discovers each root with its own `FileSystemSkillSource`, so one root's
 * failure is reported against that root while the others still scan.
 * `overlays` are the deployer's sidecar directories, applied to every root.
 */
export async function collectSkills(
  roots: readonly string[],
  strict: boolean,
  overlays: readonly string[] = [],
): Promise<RootScan[]> {
  const scans: RootScan[] = []
  for (const raw of roots) {
    const root = resolve(raw)
    const skills: DiscoveredSkill[] = []
    const problems: SkillProblem[] = []
    const source = new FileSystemSkillSource({ roots: [root], strict, id: root, overlays })
    try {
      for await (const skill of source.discover({ report: (p) => problems.push(p) }))
        skills.push(skill)
      scans.push({ root, source, skills, problems })
    } catch (err) {
      const message = SkillHostError.isInstance(err) ? `${err.code}: ${err.message}` : String(err)
      scans.push({ root, source, skills, problems, error: message })
    }
  }
  return scans
}

/** The skill folder of a discovered skill (its location without `/SKILL.md`). */
export function skillFolderOf(skill: DiscoveredSkill): string {
  return (skill.location ?? '').replace(/[\\/]SKILL\.md$/, '')
}
