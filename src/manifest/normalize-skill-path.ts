import { SkillHostError } from '../common/errors.js'

// Windows device names are unsafe as path segments on any host that may later
// materialize the skill on Windows.
const DEVICE_NAME = /^(?:con|prn|aux|nul|com\d|lpt\d)(?:\..*)?$/i

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
const CONTROL = /[\0-\x1f]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
const CONTROL_ALL = /[\0-\x1f]/g

function reject(path: string, why: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_SOURCE_PATH_REJECTED',
    `Path "${path.replace(CONTROL_ALL, '?')}" is rejected: ${why}. Use a relative path inside the skill.`,
    {
      data: { reason: why },
    },
  )
}

/**
 * Normalizes a path relative to a skill folder to `a/b/c` form. Rejects (with
 * `E_SKILL_SOURCE_PATH_REJECTED`) absolute paths, any `..` segment, `~` home
 * paths, drive letters, UNC and device paths, NUL and other control
 * characters, and paths that name the folder itself. `\` counts as a separator
 * so a Windows-style escape cannot slip past a POSIX check.
 */
export function normalizeSkillPath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0)
    throw reject(
      typeof path === 'string' ? path : `(${typeof path})`,
      'it is empty or not a string',
    )
  if (CONTROL.test(path)) throw reject(path, 'it contains NUL or a control character')
  if (path.startsWith('/') || path.startsWith('\\'))
    throw reject(path, 'it is absolute or a UNC path')
  const segments: string[] = []
  for (const segment of path.split(/[\\/]+/)) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') throw reject(path, 'it contains ".."')
    if (DEVICE_NAME.test(segment)) throw reject(path, 'it names a device')
    segments.push(segment)
  }
  if (segments.length === 0) throw reject(path, 'it names the skill folder itself')
  // Checked on the first segment that stays, so `./~` or `./C:x` cannot normalize into one.
  const first = segments[0] as string
  if (first.startsWith('~')) throw reject(path, 'it refers to a home directory')
  if (/^[A-Za-z]:/.test(first)) throw reject(path, 'it has a drive letter')
  return segments.join('/')
}
