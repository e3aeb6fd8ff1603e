import { SkillHostError } from '../../../common/errors.js'

/**
 * One requirement of the subset skillhost accepts: a PEP 508 name with
 * optional extras, version specifiers and an environment marker, never a
 * URL, a path or a pip option.
 */
export interface Requirement {
  /** The PEP 503 normalized name (`Foo_Bar` → `foo-bar`). */
  readonly name: string
  /** The requirement as pip is given it: normalized name, extras, specifiers, marker. */
  readonly text: string
}

/** The longest requirement line read; anything longer is refused. */
export const MAX_REQUIREMENT_CHARS = 400

/** The most requirements one set may hold. */
export const MAX_REQUIREMENTS = 200

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/
const VERSION = /^[A-Za-z0-9.*+!_-]+$/
const SPECIFIER = /^(~=|===|==|!=|<=|>=|<|>)\s*([^\s,;]+)$/
// PEP 508 marker variables; a marker is these, quoted literals, comparisons, and/or and parentheses.
const MARKER_VARIABLES = new Set([
  'python_version',
  'python_full_version',
  'os_name',
  'sys_platform',
  'platform_release',
  'platform_system',
  'platform_version',
  'platform_machine',
  'platform_python_implementation',
  'implementation_name',
  'implementation_version',
  'extra',
])
const MARKER_TOKEN =
  /\s*(?:(\()|(\))|("[^"\\]*"|'[^'\\]*')|(===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b)|(and|or)\b|([A-Za-z_]+))/y

/** Whether `marker` is a PEP 508 marker: `var op 'literal'` terms joined by and/or, in parentheses or not. */
function isMarker(marker: string): boolean {
  MARKER_TOKEN.lastIndex = 0
  let expect: 'operand' | 'op' | 'joiner' = 'operand'
  let lhs = true
  let depth = 0
  while (MARKER_TOKEN.lastIndex < marker.length) {
    const t = MARKER_TOKEN.exec(marker)
    if (t === null) return marker.slice(MARKER_TOKEN.lastIndex).trim() === '' && expect === 'joiner'
    if (t[1] && expect === 'operand' && lhs) depth++
    else if (t[2] && expect === 'joiner' && depth > 0) depth--
    else if ((t[3] || (t[6] && MARKER_VARIABLES.has(t[6]))) && expect === 'operand') {
      expect = lhs ? 'op' : 'joiner'
      lhs = !lhs
    } else if (t[4] && expect === 'op') expect = 'operand'
    else if (t[5] && expect === 'joiner') {
      expect = 'operand'
      lhs = true
    } else return false
  }
  return expect === 'joiner' && depth === 0
}

/** PEP 503 normalization of a distribution name. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-')
}

/** Thrown for a requirement outside the subset; `where` names the place, never the text. */
export function invalidRequirement(where: string, why: string): SkillHostError {
  return new SkillHostError('E_SKILL_REQUIREMENTS_INVALID', `${where}: ${why}`, {
    data: { where },
  })
}

/**
 * Parses one requirement string: `name[extra,…] (specifier, …) ; marker`,
 * where the parenthesis is optional. Throws `E_SKILL_REQUIREMENTS_INVALID`
 * naming `where` (a line number, `dependencies[2]`) for a URL (`@`, `://`),
 * a path, an option, an odd name or specifier, or a line past
 * `MAX_REQUIREMENT_CHARS`.
 */
export function parseRequirement(raw: string, where: string): Requirement {
  if (raw.length > MAX_REQUIREMENT_CHARS)
    throw invalidRequirement(where, `longer than ${MAX_REQUIREMENT_CHARS} characters.`)
  const semi = raw.indexOf(';')
  const head = (semi < 0 ? raw : raw.slice(0, semi)).trim()
  const marker = semi < 0 ? undefined : raw.slice(semi + 1).trim()
  if (head.startsWith('-')) throw invalidRequirement(where, 'pip options are not accepted.')
  if (/@|:\/\/|^[./~]|\\/.test(head))
    throw invalidRequirement(where, 'URLs and paths are not accepted; name a package.')
  const m = /^([^\s[(<>=!~]+)\s*(?:\[([^\]]*)\])?\s*(.*)$/.exec(head)
  const name = m?.[1] ?? ''
  if (!NAME.test(name)) throw invalidRequirement(where, 'not a package name.')
  const extras = (m?.[2] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  if (extras.some((e) => !NAME.test(e))) throw invalidRequirement(where, 'an extra is not a name.')
  let rest = (m?.[3] ?? '').trim()
  if (rest.startsWith('(') && rest.endsWith(')')) rest = rest.slice(1, -1).trim()
  const specs =
    rest === ''
      ? []
      : rest.split(',').map((part) => {
          const s = SPECIFIER.exec(part.trim())
          if (s === null || !VERSION.test(s[2] as string))
            throw invalidRequirement(where, 'not a version specifier.')
          return `${s[1]}${s[2]}`
        })
  if (marker !== undefined && !isMarker(marker))
    throw invalidRequirement(where, 'not an environment marker.')
  const normalized = normalizeName(name)
  const text = `${normalized}${extras.length ? `[${extras.map(normalizeName).join(',')}]` : ''}${specs.join(',')}${marker === undefined ? '' : `; ${marker}`}`
  return { name: normalized, text }
}
