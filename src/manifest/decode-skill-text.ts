import { SkillHostError } from '../common/errors.js'

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Decodes a skill file as strict UTF-8. A leading BOM is dropped; invalid
 * UTF-8 fails with `E_SKILL_MANIFEST_INVALID` instead of being replaced with
 * U+FFFD, because a silently mangled manifest would load with wrong metadata.
 */
export function decodeSkillText(bytes: Uint8Array, what = 'SKILL.md'): string {
  try {
    return decoder.decode(bytes)
  } catch (cause) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `${what} is not valid UTF-8; save it as UTF-8.`,
      {
        cause,
      },
    )
  }
}
