import { isTextMimeType } from './artifacts/artifact-text.js'

/** How a file's bytes should be shown: as text (valid UTF-8 without NUL) or as binary of a media type. */
export interface FileType {
  readonly text: boolean
  readonly mediaType: string
}

// The one file-extension → media-type table: the types skills and scripts
// commonly ship or write. A file whose extension is not here is typed by its
// content (`fileType`).
const BY_EXTENSION: ReadonlyMap<string, string> = new Map([
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['txt', 'text/plain'],
  ['csv', 'text/csv'],
  ['tsv', 'text/tab-separated-values'],
  ['html', 'text/html'],
  ['htm', 'text/html'],
  ['css', 'text/css'],
  ['py', 'text/x-python'],
  ['rb', 'text/x-ruby'],
  ['js', 'text/javascript'],
  ['mjs', 'text/javascript'],
  ['cjs', 'text/javascript'],
  ['ts', 'text/x-typescript'],
  ['sh', 'application/x-sh'],
  ['bash', 'application/x-sh'],
  ['json', 'application/json'],
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['toml', 'application/toml'],
  ['xml', 'application/xml'],
  ['xsd', 'application/xml'],
  ['svg', 'image/svg+xml'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['ico', 'image/vnd.microsoft.icon'],
  ['pdf', 'application/pdf'],
  ['zip', 'application/zip'],
  ['gz', 'application/gzip'],
  ['tar', 'application/x-tar'],
  ['wasm', 'application/wasm'],
  ['ttf', 'font/ttf'],
  ['otf', 'font/otf'],
  ['woff', 'font/woff'],
  ['woff2', 'font/woff2'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
])

/**
 * The media type the name of `path` gives (its extension, case-insensitive);
 * undefined when the extension is unknown or there is none. A dotfile such as
 * `.json` has no extension.
 */
export function mediaTypeByName(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot > 0 ? BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) : undefined
}

/**
 * The one rule for "is this file text, and of what type" (skill files,
 * workspace files, script outputs): text when the bytes are valid UTF-8 and
 * hold no NUL, whatever the name says; the media type from the extension
 * (`mediaTypeByName`) unless that is a text type and the bytes are not text;
 * else `text/plain` for text and `application/octet-stream` for anything else. Only the bytes given are
 * examined: pass `complete: false` for a prefix, so a character cut at its
 * end does not count as invalid.
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
  const byName = mediaTypeByName(path)
  // A name never gives bytes that are not text a text type (a Latin-1 `notes.txt`).
  if (byName !== undefined && (text || !isTextMimeType(byName))) return { text, mediaType: byName }
  return { text, mediaType: text ? 'text/plain' : 'application/octet-stream' }
}
