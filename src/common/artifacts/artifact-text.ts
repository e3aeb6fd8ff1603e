import type { Retrievable } from '../retrievable.js'

/** Decoded artifact content: text split into lines, or why it is binary. */
export type ArtifactText =
  | { readonly binary: false; readonly text: string; readonly lines: readonly string[] }
  | { readonly binary: true; readonly reason: string }

const TEXT_MIME = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/javascript',
  'application/typescript',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/csv',
  'application/graphql',
])

/** The `type/subtype` part of a MIME type, lowercased, without parameters. */
export function baseMimeType(mimeType: string): string {
  return (mimeType.split(';')[0] ?? '').trim().toLowerCase()
}

/** True when the MIME type names textual content (`text/*`, JSON, XML, YAML, …). */
export function isTextMimeType(mimeType: string): boolean {
  const base = baseMimeType(mimeType)
  return (
    base.startsWith('text/') ||
    TEXT_MIME.has(base) ||
    base.endsWith('+json') ||
    base.endsWith('+xml')
  )
}

/**
 * Splits text into lines the way an editor numbers them: `\n` or `\r\n` ends a
 * line, and a final line terminator does not start an extra empty line.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1)
  }
  return lines
}

/**
 * Decodes spooled bytes as UTF-8 text. Content is binary, and is then only
 * described, when its MIME type is not textual, when it is not valid UTF-8,
 * or when it holds a NUL character (no text format uses one).
 */
export function decodeArtifactText(
  bytes: Uint8Array,
  record: Pick<Retrievable, 'mimeType'>,
): ArtifactText {
  if (!isTextMimeType(record.mimeType)) {
    return { binary: true, reason: `its MIME type ${baseMimeType(record.mimeType)} is not text` }
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return { binary: true, reason: 'it is not valid UTF-8 text' }
  }
  if (text.includes('\u0000')) return { binary: true, reason: 'it holds NUL bytes' }
  return { binary: false, text, lines: splitLines(text) }
}

const encoder = new TextEncoder()

/** UTF-8 size of `text` in bytes. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a
 * character: its start when `from` is 'start', its end otherwise.
 */
export function cutUtf8(text: string, maxBytes: number, from: 'start' | 'end' = 'start'): string {
  const bytes = encoder.encode(text)
  if (bytes.byteLength <= maxBytes) return text
  if (from === 'start') {
    let end = maxBytes
    while (end > 0 && isContinuation(bytes[end])) end--
    return new TextDecoder().decode(bytes.subarray(0, end))
  }
  let start = bytes.byteLength - maxBytes
  while (start < bytes.byteLength && isContinuation(bytes[start])) start++
  return new TextDecoder().decode(bytes.subarray(start))
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split
 * a surrogate pair, so a shortened line never ends in half a character.
 */
export function sliceWhole(text: string, max: number): string {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/** A title cut to `max` UTF-16 units (never inside a character), with an ellipsis when cut. */
export function shortTitle(text: string, max: number): string {
  return text.length > max ? `${sliceWhole(text, max)}…` : text
}

/** True for a UTF-8 continuation byte (`10xxxxxx`): never a character boundary. */
export function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80
}
