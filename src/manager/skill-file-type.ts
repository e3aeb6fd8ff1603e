import { decodeArtifactText } from '../common/artifacts/artifact-text.js'

// The types skills commonly ship, by extension. A file whose extension is not
// here is typed by its content: text/plain when it decodes as UTF-8 text,
// application/octet-stream otherwise.
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

/** The MIME type of a skill file named `path`, from its extension; undefined when unknown. */
export function skillFileMimeTypeByName(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot > 0 ? BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) : undefined
}

/**
 * The MIME type of a skill file: by extension when known, else `text/plain`
 * for content that decodes as UTF-8 text without NUL, else
 * `application/octet-stream`.
 */
export function skillFileMimeType(path: string, bytes: Uint8Array): string {
  const known = skillFileMimeTypeByName(path)
  if (known !== undefined) return known
  return decodeArtifactText(bytes, { mimeType: 'text/plain' }).binary
    ? 'application/octet-stream'
    : 'text/plain'
}
