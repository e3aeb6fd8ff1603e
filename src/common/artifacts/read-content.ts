import { SkillHostError } from '../errors.js'
import type { Retrievable } from '../retrievable.js'
import { type GrepOptions, type GrepResult, grepLines } from './artifact-grep.js'
import { decodeArtifactText } from './artifact-text.js'
import type { BinaryContent, CatRange } from './artifact-types.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'
import { type ByteWindow, type LineWindow, readByteRange, readLinesForward } from './text-window.js'

// The reads behind `cat` and `grep`, over bytes already in hand: spooled
// artifacts and a loaded skill's files (`read_skill_file`) both go through
// them, so a range or a pattern means the same thing and obeys the same caps
// wherever the bytes come from.

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)

/** `maxBytes` clamped to `ARTIFACT_READ_LIMITS.maxBytes`; `E_ARTIFACT_READ_INVALID` unless a positive integer. */
export function byteCap(maxBytes: number | undefined): number {
  if (maxBytes === undefined) return ARTIFACT_READ_LIMITS.maxBytes
  if (!Number.isInteger(maxBytes) || maxBytes < 1)
    throw invalid('maxBytes must be a positive integer.')
  return Math.min(maxBytes, ARTIFACT_READ_LIMITS.maxBytes)
}

/**
 * A line range (1-based, inclusive; default 200 lines from line 1, at most
 * 2,000) or a byte range (0-based, end exclusive) of `bytes`, within the byte
 * cap; binary content (by MIME type, invalid UTF-8 or NUL) is described, never
 * shown. Throws `E_ARTIFACT_READ_INVALID` for a range that mixes lines and
 * bytes, is reversed, or starts past the end.
 */
export function catContent(
  bytes: Uint8Array,
  record: Pick<Retrievable, 'mimeType'>,
  range: CatRange = {},
  maxBytes?: number,
): LineWindow | ByteWindow | BinaryContent {
  const byLines = range.startLine !== undefined || range.endLine !== undefined
  const byBytes = range.startByte !== undefined || range.endByte !== undefined
  if (byLines && byBytes)
    throw invalid(
      'Give a line range (startLine/endLine) or a byte range (startByte/endByte), not both.',
    )
  const cap = byteCap(maxBytes)
  if (byBytes) return catByteRange(bytes, record, range, cap)
  const start = range.startLine ?? 1
  if (!Number.isInteger(start) || start < 1)
    throw invalid('startLine must be an integer of at least 1.')
  const end = range.endLine
  if (end !== undefined && (!Number.isInteger(end) || end < start)) {
    throw invalid('endLine must be an integer no smaller than startLine.')
  }
  const content = decodeArtifactText(bytes, record)
  if (content.binary) return content
  const total = content.lines.length
  if (start > Math.max(total, 1))
    throw invalid(`startLine ${start} is past the end: there are ${total} lines.`)
  const last = Math.min(end ?? start + ARTIFACT_READ_LIMITS.defaultLines - 1, total)
  const wanted = Math.max(0, last - start + 1)
  const count = Math.min(wanted, ARTIFACT_READ_LIMITS.maxLines)
  const window = readLinesForward(content.lines, start - 1, count, cap)
  return count < wanted ? { ...window, truncated: true } : window
}

function catByteRange(
  bytes: Uint8Array,
  record: Pick<Retrievable, 'mimeType'>,
  range: CatRange,
  cap: number,
): ByteWindow | BinaryContent {
  const start = range.startByte ?? 0
  if (!Number.isInteger(start) || start < 0)
    throw invalid('startByte must be an integer of at least 0.')
  const end = range.endByte ?? start + cap
  if (!Number.isInteger(end) || end <= start)
    throw invalid('endByte must be an integer greater than startByte.')
  const content = decodeArtifactText(bytes, record)
  if (content.binary) return content
  if (start > bytes.byteLength || (start === bytes.byteLength && start > 0)) {
    throw invalid(`startByte ${start} is past the end: there are ${bytes.byteLength} bytes.`)
  }
  return readByteRange(bytes, start, end, cap)
}

/** Lines of `bytes` matching `options.pattern` (literal unless `regex: true`, then RE2), within the caps. */
export function grepContent(
  bytes: Uint8Array,
  record: Pick<Retrievable, 'mimeType'>,
  options: GrepOptions,
  maxBytes?: number,
): GrepResult | BinaryContent {
  if (typeof options?.pattern !== 'string') throw invalid('pattern must be a string.')
  const cap = byteCap(maxBytes)
  const content = decodeArtifactText(bytes, record)
  if (content.binary) return content
  return grepLines(content.lines, options, cap)
}
