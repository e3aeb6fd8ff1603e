import { quoteName } from '../../../common/index.js'
import { MANIFEST_LIMITS, skillNameProblems } from '../../../manifest/index.js'
import { normalizeSkillPath } from '../../../skill-model/internal.js'
import type { SkillFileManifest } from '../../../sources/index.js'

/** Why a skill is left out of the Skills Extension: model-safe, host-written text. */
export type LeftOutReason = string

/** The path as the skill's readers name it, or undefined for one they refuse (a device name…). */
function readerPath(path: string): string | undefined {
  try {
    return normalizeSkillPath(path)
  } catch {
    return undefined
  }
}

/**
 * True when a listed file can be read back under its own name: a name with
 * a backslash reads as another path (`a\b` is `a/b`), so it is not listed
 * (`load_skill` leaves it behind too) and the skill is served without it.
 */
export function listableFile(path: string): boolean {
  return readerPath(path) === path
}

/**
 * Why `manifest` breaks the Agent Skills rules the extension's reference
 * server enforces (it skips such a skill, and the SDK's `SkillsClient`
 * rejects it): `name` not 1–64 lowercase letters, digits and single `-`, or
 * not the folder's name (the URI's last segment); `description` not a string
 * of 1–1,024 characters; `compatibility` not a string of at most 500;
 * `metadata` not a map of string to string. Undefined when it keeps them.
 */
export function agentSkillsRuleBroken(manifest: SkillFileManifest): LeftOutReason | undefined {
  const fm = manifest.frontmatter
  const name = fm.name
  if (typeof name !== 'string') return 'its frontmatter name is not a string'
  const nameProblem = skillNameProblems(name)[0]
  if (nameProblem) return `its frontmatter ${nameProblem}`
  if (name !== manifest.id) return 'its frontmatter name is not its folder name'
  const description = fm.description
  if (typeof description !== 'string' || description.length === 0)
    return 'its description is not a non-empty string'
  if (description.length > MANIFEST_LIMITS.description)
    return `its description is longer than ${MANIFEST_LIMITS.description} characters`
  const compatibility = fm.compatibility
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility.length > MANIFEST_LIMITS.compatibility)
  )
    return `its compatibility is not a string of at most ${MANIFEST_LIMITS.compatibility} characters`
  const metadata = fm.metadata
  if (metadata !== undefined) {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      return 'its metadata is not a map of strings'
    for (const [key, value] of Object.entries(metadata))
      if (typeof value !== 'string')
        return `its metadata value ${quoteName(key.slice(0, 80))} is not a string`
  }
  return undefined
}

/**
 * Why `manifest` cannot be served: a file whose name every reader refuses
 * (a Windows device name such as `con.md`, a control character), for which
 * `load_skill` refuses the whole skill too; so the extension leaves it out
 * of `skills/list` rather than listing a file `resources/read` would
 * refuse. Undefined when no file is refused.
 */
export function unreadableFile(manifest: SkillFileManifest): LeftOutReason | undefined {
  const bad = manifest.files.find((f) => readerPath(f.path) === undefined)
  return bad && `it ships a file whose name cannot be served (${quoteName(bad.path.slice(0, 80))})`
}
