import * as buffer from 'node:buffer'
import { SkillHostError } from '../common/errors.js'

// `isUtf8` is Node >= 18.14; without it the whole file is decoded.
const isUtf8 = (buffer as { isUtf8?: (input: Uint8Array) => boolean }).isUtf8

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

/**
 * The start of a SKILL.md, decoded, through its closing frontmatter fence:
 * `parseSkillMd` reads the same frontmatter from it as from the whole file.
 * The rest is only checked to be UTF-8 (failing as `decodeSkillText` does),
 * so discovery neither decodes a long body nor keeps it alive through
 * strings sliced from the frontmatter. Without a closing fence, the whole
 * file is decoded.
 */
export function decodeSkillHead(bytes: Uint8Array): string {
  const cut = afterClosingFence(bytes)
  if (cut === bytes.byteLength || !isUtf8) return decodeSkillText(bytes)
  if (!isUtf8(bytes.subarray(cut))) decodeSkillText(bytes) // throws the usual error
  return decodeSkillText(bytes.subarray(0, cut))
}

const CR = 0x0d
const LF = 0x0a

/**
 * Just past the line ending of the first line after the first one that is
 * `---` plus optional blanks, splitting lines at CR or LF (as `parseSkillMd`,
 * which turns CRLF and CR into LF, does), or the length when there is none.
 * The cut falls after an ASCII byte, so UTF-8 validity splits there too.
 */
function afterClosingFence(bytes: Uint8Array): number {
  const n = bytes.byteLength
  let i = 0
  // Skip the first line.
  while (i < n && bytes[i] !== LF && bytes[i] !== CR) i++
  while (i < n) {
    // `i` is at a line ending; step past it to the next line's start.
    i++
    if (i + 2 < n && bytes[i] === 0x2d && bytes[i + 1] === 0x2d && bytes[i + 2] === 0x2d) {
      let j = i + 3
      while (j < n && (bytes[j] === 0x20 || bytes[j] === 0x09)) j++
      if (j < n && (bytes[j] === LF || bytes[j] === CR)) {
        return bytes[j] === CR && bytes[j + 1] === LF ? j + 2 : j + 1
      }
    }
    while (i < n && bytes[i] !== LF && bytes[i] !== CR) i++
  }
  return n
}
