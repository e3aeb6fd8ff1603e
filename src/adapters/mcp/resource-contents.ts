import { isTextMimeType } from '../../common/internal.js'

/** One item of a `resources/read` answer: the file as text or as a base64 blob. */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType: string; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly blob: string }

// fatal: invalid UTF-8 is not text; ignoreBOM: a leading BOM stays in the text (the default drops it).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The `resources/read` item for `bytes`, byte-exact either way: `text` only
 * when the MIME type is textual and the bytes are valid UTF-8 without NUL
 * (so the text's UTF-8 encoding is exactly `bytes`, a leading BOM, CRLF
 * line ends and an empty file included); any other bytes (Latin-1, binary)
 * as a base64 `blob`. A client verifying the listed digest hashes what it
 * got: the UTF-8 of `text`, or the decoded `blob`.
 */
export function resourceContents(
  uri: string,
  mimeType: string,
  bytes: Uint8Array,
): ResourceContents {
  if (isTextMimeType(mimeType)) {
    let text: string | undefined
    try {
      text = utf8.decode(bytes)
    } catch {
      text = undefined
    }
    if (text !== undefined && !text.includes('\u0000')) return { uri, mimeType, text }
  }
  const blob = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  return { uri, mimeType, blob }
}
