import type { Retrievable } from '../retrievable.js'
import type { GrepResult } from './artifact-grep.js'
import type { BinaryContent, CatRange } from './artifact-types.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'
import type { ByteWindow, LineWindow } from './text-window.js'

// Reader results are plain strings: a bracketed header, the content, and
// bracketed notes that say whether anything was left out and which call reads
// on. The model pages from these hints, so every cut is announced.

/**
 * What a read is of, for its header and paging hints: a spooled artifact
 * (`artifactSubject`) or a loaded skill's file (`read_skill_file`).
 */
export interface ReadSubject {
  /** How the header names it, e.g. `artifact r_0123…` or `skill 'pdf' file 'forms.md'`. */
  readonly label: string
  readonly mimeType: string
  readonly size: number
  /** The call that reads `range` of the subject, as shown to the model. */
  readonly readCall: (range: CatRange) => string
  /** The note ending a binary description: where the details are. */
  readonly binaryHint: string
}

const call = (tool: string, args: Record<string, unknown>) => `${tool} ${JSON.stringify(args)}`

/** The subject of a read of the spooled artifact `record`: paging hints name `artifact_cat`. */
export function artifactSubject(record: Retrievable): ReadSubject {
  return {
    label: `artifact ${record.id}`,
    mimeType: record.mimeType,
    size: record.size,
    readCall: (range) => call('artifact_cat', { id: record.id, ...range }),
    binaryHint: 'artifact_stat gives its details.',
  }
}

const subjectOf = (s: Retrievable | ReadSubject): ReadSubject =>
  'readCall' in s ? s : artifactSubject(s)

/** The text a reader returns for binary content: what it is, never the bytes. */
export function formatBinary(of: Retrievable | ReadSubject, content: BinaryContent): string {
  const s = subjectOf(of)
  return `[${s.label} is binary (${s.mimeType}, ${s.size} bytes): ${content.reason}, so it is described rather than shown. ${s.binaryHint}]`
}

/** The text a reader returns for a line window, with truncation and paging notes. */
export function formatLineWindow(
  of: Retrievable | ReadSubject,
  w: LineWindow,
  direction: 'forward' | 'backward',
): string {
  const s = subjectOf(of)
  if (w.totalLines === 0) return `[${s.label} is empty]`
  const notes: string[] = []
  if (w.partialLine) {
    notes.push(
      `[line ${direction === 'forward' ? w.firstLine : w.lastLine} is longer than the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap and was cut; read it in pieces with a byte range (startByte/endByte)]`,
    )
  }
  if (direction === 'forward') {
    const next = w.lastLine + 1
    if (next <= w.totalLines) {
      const why = w.truncated
        ? `truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap`
        : 'more lines follow'
      notes.push(
        `[${why}: ${w.totalLines - w.lastLine} lines after line ${w.lastLine}; continue with ${s.readCall({ startLine: next })}]`,
      )
    } else if (w.truncated) {
      notes.push(`[truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap]`)
    }
  } else if (w.firstLine > 1) {
    const before = w.firstLine - 1
    const why = w.truncated
      ? `truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap`
      : 'earlier lines exist'
    notes.push(
      `[${why}: ${before} lines before line ${w.firstLine}; page back with ${s.readCall({ startLine: Math.max(1, before - ARTIFACT_READ_LIMITS.defaultLines + 1), endLine: before })}]`,
    )
  }
  const header = `[${s.label} lines ${w.firstLine}-${w.lastLine} of ${w.totalLines}]`
  return [header, w.text, ...notes].join('\n')
}

/** The text a reader returns for a byte window. */
export function formatByteWindow(of: Retrievable | ReadSubject, w: ByteWindow): string {
  const s = subjectOf(of)
  const header = `[${s.label} bytes ${w.startByte}-${w.endByte} of ${w.totalBytes}]`
  const notes: string[] = []
  if (w.endByte < w.totalBytes) {
    const why = w.truncated
      ? `truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap`
      : 'more bytes follow'
    notes.push(`[${why}; continue with ${s.readCall({ startByte: w.endByte })}]`)
  }
  return [header, w.text, ...notes].join('\n')
}

/** The text a grep returns (`artifact_grep`, `read_skill_file` with `grep`). */
export function formatGrep(
  of: Retrievable | ReadSubject,
  pattern: string,
  regex: boolean,
  g: GrepResult,
): string {
  const s = subjectOf(of)
  const what = `${regex ? 'regex' : 'literal'} ${JSON.stringify(pattern)}`
  if (g.matches === 0 && !g.truncated) {
    const scanned =
      g.scannedLines < g.totalLines
        ? ` (scanned lines 1-${g.scannedLines} of ${g.totalLines}; the scan cap stopped the search)`
        : ''
    return `[${s.label}: no lines match ${what}${scanned}]`
  }
  const notes: string[] = []
  if (g.truncated)
    notes.push(
      `[truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap; narrow the pattern or use less context]`,
    )
  if (g.moreMatches) {
    notes.push(
      `[more matches after line ${g.scannedLines}; raise maxMatches, narrow the pattern or read on with ${s.readCall({ startLine: g.scannedLines + 1 })}]`,
    )
  } else if (g.scannedLines < g.totalLines) {
    notes.push(
      `[the ${ARTIFACT_READ_LIMITS.maxScanBytes}-byte scan cap stopped the search at line ${g.scannedLines} of ${g.totalLines}; read the rest with ${s.readCall({ startLine: g.scannedLines + 1 })}]`,
    )
  }
  const header = `[${s.label}: ${g.matches} matching lines for ${what}]`
  return [header, g.text, ...notes].join('\n')
}
