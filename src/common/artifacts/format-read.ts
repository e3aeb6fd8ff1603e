import type { Retrievable } from '../retrievable.js'
import type { GrepResult } from './artifact-grep.js'
import type { BinaryContent } from './artifact-types.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'
import type { ByteWindow, LineWindow } from './text-window.js'

// Reader results are plain strings: a bracketed header, the content, and
// bracketed notes that say whether anything was left out and which call reads
// on. The model pages from these hints, so every cut is announced.

const call = (tool: string, args: Record<string, unknown>) => `${tool} ${JSON.stringify(args)}`

/** The text a reader returns for binary content: what it is, never the bytes. */
export function formatBinary(record: Retrievable, content: BinaryContent): string {
  return `[artifact ${record.id} is binary (${record.mimeType}, ${record.size} bytes): ${content.reason}, so it is described rather than shown. artifact_stat gives its details.]`
}

/** The text a reader returns for a line window, with truncation and paging notes. */
export function formatLineWindow(
  record: Retrievable,
  w: LineWindow,
  direction: 'forward' | 'backward',
): string {
  if (w.totalLines === 0) return `[artifact ${record.id} is empty]`
  const notes: string[] = []
  if (w.partialLine) {
    notes.push(
      `[line ${direction === 'forward' ? w.firstLine : w.lastLine} is longer than the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap and was cut; read it in pieces with artifact_cat startByte/endByte]`,
    )
  }
  if (direction === 'forward') {
    const next = w.lastLine + 1
    if (next <= w.totalLines) {
      const why = w.truncated
        ? `truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap`
        : 'more lines follow'
      notes.push(
        `[${why}: ${w.totalLines - w.lastLine} lines after line ${w.lastLine}; continue with ${call('artifact_cat', { id: record.id, startLine: next })}]`,
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
      `[${why}: ${before} lines before line ${w.firstLine}; page back with ${call('artifact_cat', { id: record.id, startLine: Math.max(1, before - ARTIFACT_READ_LIMITS.defaultLines + 1), endLine: before })}]`,
    )
  }
  const header = `[artifact ${record.id} lines ${w.firstLine}-${w.lastLine} of ${w.totalLines}]`
  return [header, w.text, ...notes].join('\n')
}

/** The text a reader returns for a byte window. */
export function formatByteWindow(record: Retrievable, w: ByteWindow): string {
  const header = `[artifact ${record.id} bytes ${w.startByte}-${w.endByte} of ${w.totalBytes}]`
  const notes: string[] = []
  if (w.endByte < w.totalBytes) {
    const why = w.truncated
      ? `truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap`
      : 'more bytes follow'
    notes.push(
      `[${why}; continue with ${call('artifact_cat', { id: record.id, startByte: w.endByte })}]`,
    )
  }
  return [header, w.text, ...notes].join('\n')
}

/** The text `artifact_grep` returns. */
export function formatGrep(
  record: Retrievable,
  pattern: string,
  regex: boolean,
  g: GrepResult,
): string {
  const what = `${regex ? 'regex' : 'literal'} ${JSON.stringify(pattern)}`
  if (g.matches === 0 && !g.truncated) {
    const scanned =
      g.scannedLines < g.totalLines
        ? ` (scanned lines 1-${g.scannedLines} of ${g.totalLines}; the scan cap stopped the search)`
        : ''
    return `[artifact ${record.id}: no lines match ${what}${scanned}]`
  }
  const notes: string[] = []
  if (g.truncated)
    notes.push(
      `[truncated at the ${ARTIFACT_READ_LIMITS.maxBytes}-byte cap; narrow the pattern or use less context]`,
    )
  if (g.moreMatches) {
    notes.push(
      `[more matches after line ${g.scannedLines}; raise maxMatches, narrow the pattern or read on with artifact_cat]`,
    )
  } else if (g.scannedLines < g.totalLines) {
    notes.push(
      `[the ${ARTIFACT_READ_LIMITS.maxScanBytes}-byte scan cap stopped the search at line ${g.scannedLines} of ${g.totalLines}; read the rest with artifact_cat]`,
    )
  }
  const header = `[artifact ${record.id}: ${g.matches} matching lines for ${what}]`
  return [header, g.text, ...notes].join('\n')
}
