import { SkillHostError } from '../common/errors.js'

// Windows reserves these names in every directory, with or without extension;
// a skill that ships one cannot be materialized portably and may address a device.
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(?:\..*)?$/i
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected
const CONTROL = /[\u0000-\u001f\u007f]/
/** The longest relative path a skill may name, in UTF-16 units. */
export const MAX_SKILL_PATH_LENGTH = 1024

function reject(path: string, why: string): never {
  // The path is skill- or model-chosen: shown quoted, shortened and with controls escaped.
  const shown = JSON.stringify(path.length > 120 ? `${path.slice(0, 120)}…` : path)
  throw new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    `The skill path ${shown} is rejected: ${why}. Use a relative path inside the skill folder, such as 'scripts/run.sh'.`,
    { data: { reason: why } },
  )
}

/**
 * The one rule for a path relative to a skill root, used by every entry point
 * (sidecar parsing, sources, script declarations, the workspace). Returns the
 * `a/b/c` form: `\` becomes `/`, `.` and empty segments go. Throws
 * `E_SKILL_SOURCE_PATH_REJECTED` for anything that could leave the root or
 * name something else: a non-string or empty path, one longer than
 * `MAX_SKILL_PATH_LENGTH`, NUL and other control characters (DEL included),
 * absolute paths, UNC and device paths (`\\server`, `\\.\`, `\\?\`, `CON`,
 * `NUL`, `COM¹`…), drive letters (`C:`), `~` (home), any `..` segment, and a
 * path that names the root itself.
 */
export function normalizeSkillPath(path: unknown): string {
  // `String(path)` could throw (a null-prototype object) or run code (a `toString`).
  if (typeof path !== 'string') reject(`(${typeof path})`, 'it is not a string')
  if (path.length === 0) reject(path, 'it is empty')
  if (path.length > MAX_SKILL_PATH_LENGTH)
    reject(path, `it is longer than ${MAX_SKILL_PATH_LENGTH} characters`)
  if (path.includes('\0')) reject(path, 'it contains a NUL character')
  if (CONTROL.test(path)) reject(path, 'it contains a control character')
  const slashed = path.replace(/\\/g, '/')
  if (slashed.startsWith('//')) reject(path, 'it is a UNC or device path')
  if (slashed.startsWith('/')) reject(path, 'it is absolute')
  const segments: string[] = []
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') reject(path, 'it traverses to a parent directory')
    if (WINDOWS_DEVICE.test(segment)) reject(path, 'it names a device')
    segments.push(segment)
  }
  if (segments.length === 0) reject(path, 'it names the skill folder itself')
  // Checked on the first segment that stays, so `./~` or `./C:x` cannot normalize into one.
  const first = segments[0] as string
  if (/^[A-Za-z]:/.test(first)) reject(path, 'it names a drive')
  if (first.startsWith('~')) reject(path, 'it refers to a home directory')
  return segments.join('/')
}
