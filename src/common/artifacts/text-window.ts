import { cutUtf8, isContinuation, utf8Length } from './artifact-text.js'

/** Lines read from an artifact. Line numbers are 1-based; both are 0 when nothing was shown. */
export interface LineWindow {
  readonly text: string
  readonly firstLine: number
  readonly lastLine: number
  readonly totalLines: number
  /** The byte cap stopped the read before everything asked for was shown. */
  readonly truncated: boolean
  /** A single line longer than the byte cap was cut to fit (its start for head/cat, its end for tail). */
  readonly partialLine: boolean
}

/** Bytes read from an artifact: `[startByte, endByte)`, snapped to character boundaries. */
export interface ByteWindow {
  readonly text: string
  readonly startByte: number
  readonly endByte: number
  readonly totalBytes: number
  /** The byte cap stopped the read before the requested end. */
  readonly truncated: boolean
}

/** Up to `count` lines from index `start` (0-based), within `maxBytes`. */
export function readLinesForward(
  lines: readonly string[],
  start: number,
  count: number,
  maxBytes: number,
): LineWindow {
  const end = Math.min(lines.length, start + count)
  const out: string[] = []
  let used = 0
  let truncated = false
  let partialLine = false
  for (let i = start; i < end; i++) {
    const line = lines[i] as string
    const size = utf8Length(line) + 1
    if (used + size > maxBytes) {
      truncated = true
      if (out.length === 0) {
        out.push(cutUtf8(line, maxBytes))
        partialLine = true
      }
      break
    }
    out.push(line)
    used += size
  }
  return {
    text: out.join('\n'),
    firstLine: out.length > 0 ? start + 1 : 0,
    lastLine: start + out.length,
    totalLines: lines.length,
    truncated,
    partialLine,
  }
}

/** Up to the last `count` lines, within `maxBytes`, keeping the lines nearest the end. */
export function readLinesBackward(
  lines: readonly string[],
  count: number,
  maxBytes: number,
): LineWindow {
  const stop = Math.max(0, lines.length - count)
  const out: string[] = []
  let used = 0
  let truncated = false
  let partialLine = false
  for (let i = lines.length - 1; i >= stop; i--) {
    const line = lines[i] as string
    const size = utf8Length(line) + 1
    if (used + size > maxBytes) {
      truncated = true
      if (out.length === 0) {
        out.push(cutUtf8(line, maxBytes, 'end'))
        partialLine = true
      }
      break
    }
    out.push(line)
    used += size
  }
  out.reverse()
  return {
    text: out.join('\n'),
    firstLine: out.length > 0 ? lines.length - out.length + 1 : 0,
    lastLine: out.length > 0 ? lines.length : 0,
    totalLines: lines.length,
    truncated,
    partialLine,
  }
}

/**
 * Bytes `[start, end)` of UTF-8 `bytes`, at most `maxBytes` of them. Both ends
 * move inward to the nearest character boundary, so the text never holds half
 * a character; the window reports the bytes it actually covers.
 */
export function readByteRange(
  bytes: Uint8Array,
  start: number,
  end: number,
  maxBytes: number,
): ByteWindow {
  const total = bytes.byteLength
  const wanted = Math.min(end, total)
  let from = Math.min(start, total)
  let to = Math.min(wanted, from + maxBytes)
  while (from < to && isContinuation(bytes[from])) from++
  while (to > from && to < total && isContinuation(bytes[to])) to--
  return {
    text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(from, to)),
    startByte: from,
    endByte: to,
    totalBytes: total,
    truncated: to < wanted,
  }
}
