import { resolve } from 'node:path'
import { personText, SkillHostError } from '../../common/index.js'
import {
  type DiscoveredSkill,
  FileSystemSkillSource,
  type SkillLock,
  type SkillProblem,
  type SkillSource,
} from '../../sources/index.js'
import type { DiscoveryProgressLine } from './discovery-progress.js'

/** What one root yielded: its skills, the problems reported, and a thrown error if discovery failed. */
export interface RootScan {
  readonly root: string
  /** The source that discovered `skills`, for reading their descriptors. */
  readonly source: SkillSource
  readonly skills: readonly DiscoveredSkill[]
  readonly problems: readonly SkillProblem[]
  readonly error?: string
}

/** How the CLI scans its roots. */
export interface CollectOptions {
  /** Apply the agentskills.io rules strictly. */
  readonly strict?: boolean
  /** The deployer's sidecar directories, applied to every root. */
  readonly overlays?: readonly string[]
  /** `--max-depth`: folder levels searched below each root. */
  readonly maxDepth?: number
  /** `--locked FILE`: check every skill against this lockfile. */
  readonly lock?: SkillLock
  /** Where each root's walk reports its progress (`discoveryProgress`). */
  readonly progress?: Pick<DiscoveryProgressLine, 'walk'>
  /** A one-shot check reading no tool (`validate`): see `FileSystemSkillSourceOptions.statLoadedOnly`. */
  readonly statLoadedOnly?: boolean
}

/**
 * Discovers each root with its own `FileSystemSkillSource`, so one root's
 * failure is reported against that root while the others still scan.
 */
export async function collectSkills(
  roots: readonly string[],
  options: CollectOptions = {},
): Promise<RootScan[]> {
  const { strict = false, overlays = [], maxDepth, lock, progress, statLoadedOnly } = options
  const scans: RootScan[] = []
  for (const raw of roots) {
    const root = resolve(raw)
    const skills: DiscoveredSkill[] = []
    const problems: SkillProblem[] = []
    const source = new FileSystemSkillSource({
      roots: [root],
      strict,
      id: root,
      // Copy keys numbered as one source over every root (serve's) numbers them.
      firstRootNumber: scans.length + 1,
      overlays,
      ...(lock && { lock }),
      ...(statLoadedOnly === true && { statLoadedOnly }),
      ...(maxDepth !== undefined && { limits: { maxDepth } }),
    })
    try {
      const report = (p: SkillProblem): void => void problems.push(p)
      const onProgress = progress?.walk()
      for await (const skill of source.discover({ report, ...(onProgress && { onProgress }) }))
        skills.push(skill)
      scans.push({ root, source, skills, problems })
    } catch (err) {
      const message = SkillHostError.isInstance(err)
        ? `${err.code}: ${personText(err)}`
        : String(err)
      scans.push({ root, source, skills, problems, error: message })
    }
  }
  return scans
}

/** The skill folder of a discovered skill (its location without `/SKILL.md`). */
export function skillFolderOf(skill: DiscoveredSkill): string {
  return (skill.location ?? '').replace(/[\\/]SKILL\.md$/, '')
}
