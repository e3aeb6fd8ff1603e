import { SkillHostError } from '../common/errors.js'

// A skill's ref is how the model names one copy of a skill. The winner of an
// id is named by the plain id; any copy (a shadowed one included) by a
// qualified ref in the spirit of Claude Code's `plugin:skill`:
//
//   qualified = part ":" part *("/" part)
//   part      = 1*(A-Z / a-z / 0-9 / "-" / "." / "_" / "~" / "%" HEX HEX)
//
// The part before ":" is the source id; the parts after it are the source's
// copy key (a `FileSystemSkillSource`: the root's number, 1-based, then the
// skill folder's path relative to that root). Every UTF-8 byte outside the
// unreserved set is percent-encoded with uppercase hex, and only those are, so
// each copy has exactly one ref, a ref holds no space, quote or control
// character, and a ':' or '/' inside a name can never be read as a separator.
// Refs name folders only relative to a root: no host path is ever in one.

/** The longest ref `load_skill` accepts, in characters; a copy whose ref would be longer has none. */
export const MAX_SKILL_REF_LENGTH = 512

const UNRESERVED = /^[A-Za-z0-9._~-]$/
const PART = /^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$/
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/** One name as a ref part: every UTF-8 byte outside `A-Z a-z 0-9 - . _ ~` as `%XX`. */
function encodePart(name: string): string {
  let out = ''
  for (const ch of name) {
    if (UNRESERVED.test(ch)) out += ch
    else
      for (const byte of encoder.encode(ch))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Why a text is not a qualified ref; the text itself is never repeated (the model or a skill chose it). */
function malformed(why: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_FOUND',
    `No skill has that ref: ${why}. Use an id or a ref exactly as list_skills shows it (list_skills with a query shows the refs of shadowed copies).`,
    { data: { reason: 'malformed-ref' } },
  )
}

function decodePart(part: string, what: string): string {
  if (!PART.test(part)) throw malformed(`its ${what} holds a character a ref never has`)
  const bytes: number[] = []
  for (let i = 0; i < part.length; i++) {
    if (part[i] === '%') {
      bytes.push(Number.parseInt(part.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(part.charCodeAt(i))
  }
  let name: string
  try {
    name = decoder.decode(new Uint8Array(bytes))
  } catch {
    throw malformed(`its ${what} is not UTF-8`)
  }
  if (encodePart(name) !== part) throw malformed(`its ${what} is not written the one way refs are`)
  return name
}

/**
 * A source's copy key for a folder: the path's segments (a root number and a
 * folder path, for a `FileSystemSkillSource`), each percent-encoded, joined by
 * `/`. Undefined when a segment is empty, `.`, `..`, holds `/` or NUL, or the
 * key is too long to fit a ref: such a copy gets no ref.
 */
export function skillCopyKey(segments: readonly string[]): string | undefined {
  if (segments.length === 0) return undefined
  for (const s of segments)
    if (s === '' || s === '.' || s === '..' || /[/\0]/.test(s)) return undefined
  const key = segments.map(encodePart).join('/')
  return key.length < MAX_SKILL_REF_LENGTH - 1 ? key : undefined
}

/**
 * The copy key a `FileSystemSkillSource` gives the skill folder at `location`
 * (its `/`-separated path relative to the root, or the folder's name for a
 * root that is itself a skill) under its root number `root` (1-based).
 */
export function fileSystemCopyKey(root: number, location: string): string | undefined {
  return skillCopyKey([String(root), ...location.split('/')])
}

/**
 * The qualified ref of a copy: its source's id, `:`, and the source's copy
 * key (a source that gives none: the skill id as its key). Undefined when the
 * ref would be longer than `MAX_SKILL_REF_LENGTH`.
 */
export function formatSkillCopyRef(sourceId: string, copyKey: string): string | undefined {
  if (sourceId === '' || copyKey === '') return undefined
  const ref = `${encodePart(sourceId)}:${copyKey}`
  return ref.length <= MAX_SKILL_REF_LENGTH ? ref : undefined
}

/** A ref read back: a plain id, or a qualified ref's source id and copy-key segments (decoded). */
export type ParsedSkillRef =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'copy'; readonly source: string; readonly key: readonly string[] }

/**
 * Reads what a caller passed as a skill: text without `:` is a plain id;
 * text with one is a qualified ref, accepted only in its one canonical form
 * (see the grammar above). Throws `E_SKILL_NOT_FOUND` (`data.reason`
 * `malformed-ref`) for a non-string, an empty text, one longer than
 * `MAX_SKILL_REF_LENGTH`, and any qualified ref that breaks the grammar
 * (an empty, `.` or `..` segment, a stray `%`, a space, a second `:`…); the
 * message never repeats the text.
 */
export function parseSkillRef(text: unknown): ParsedSkillRef {
  if (typeof text !== 'string' || text.length === 0) throw malformed('it is not a non-empty text')
  if (text.length > MAX_SKILL_REF_LENGTH)
    throw malformed(`it is longer than ${MAX_SKILL_REF_LENGTH} characters`)
  const colon = text.indexOf(':')
  if (colon < 0) return { kind: 'id', id: text }
  const source = decodePart(text.slice(0, colon), 'source')
  const key = text
    .slice(colon + 1)
    .split('/')
    .map((part) => {
      const name = decodePart(part, 'folder path')
      if (name === '.' || name === '..' || /[/\0]/.test(name))
        throw malformed('its folder path names no folder inside a root')
      return name
    })
  return { kind: 'copy', source, key }
}
