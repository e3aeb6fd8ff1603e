import { SkillHostError } from '../../common/errors.js'

// Windows reserves these names in every directory, with or without extension;
// a skill that ships one cannot be materialized portably and may address a device.
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(?:\..*)?$/i
const MAX_PATH_LENGTH = 1024

function reject(path: string, why: string): never {
  const shown = JSON.stringify(path.length > 120 ? `${path.slice(0, 120)}…` : path)
  throw new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    `The skill path ${shown} is rejected: ${why}. Use a relative path inside the skill folder, such as 'scripts/run.sh'.`,
    { data: { reason: why } },
  )
}

/**
 * Normalizes a path relative to a skill root to `a/b/c` form: `\` becomes
 * `/`, `.` and empty segments go. Throws `E_SKILL_SOURCE_PATH_REJECTED` for
 * anything that could leave the root or name something else: absolute paths,
 * any `..` segment, `~` (home), drive letters (`C:`), UNC and device paths
 * (`\\server`, `\\.\`, `\\?\`, `CON`, `NUL`…), NUL and other control
 * characters, and the empty path.
 */
export function normalizeSkillPath(path: string): string {
  // `String(path)` could throw (a null-prototype object) or run code (a `toString`).
  if (typeof path !== 'string') reject(`(${typeof path})`, 'it is not a string')
  if (path.length === 0) reject(path, 'it is empty')
  if (path.length > MAX_PATH_LENGTH) reject(path, `it is longer than ${MAX_PATH_LENGTH} characters`)
  if (path.includes('\0')) reject(path, 'it contains a NUL character')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected
  if (/[\u0001-\u001f\u007f]/.test(path)) reject(path, 'it contains a control character')
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

/**
 * The script path a declaration names, normalized by `normalizeSkillPath`.
 * Throws `E_SKILL_SOURCE_PATH_REJECTED` for the same forms.
 */
export function normalizeScriptPath(path: string): string {
  return normalizeSkillPath(path)
}
