/** How a file's bytes should be shown: as text (valid UTF-8 without NUL) or as binary of a media type. */
export interface FileType {
  readonly text: boolean
  readonly mediaType: string
}

const BY_EXTENSION: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  gz: 'application/gzip',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  json: 'application/json',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
}

/**
 * The one rule for "is this file text, and of what type" (skill files,
 * workspace files): text when the bytes are valid UTF-8 and hold no NUL,
 * whatever the name says; the media type from the extension, else
 * `text/plain` for text and `application/octet-stream` for anything else.
 * Only the bytes given are examined: pass `complete: false` for a prefix, so
 * a character cut at its end does not count as invalid.
 */
export function fileType(path: string, bytes: Uint8Array, complete = true): FileType {
  let text = !bytes.includes(0)
  if (text) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete })
    } catch {
      text = false
    }
  }
  const dot = path.lastIndexOf('.')
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : ''
  const known = Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : undefined
  return { text, mediaType: known ?? (text ? 'text/plain' : 'application/octet-stream') }
}
