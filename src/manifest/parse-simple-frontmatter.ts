import { parseFrontmatterSubset } from './parse-frontmatter-subset.js'

/**
 * The fast path for frontmatter: `undefined` unless the text is in a subset
 * of YAML whose meaning is certain, else exactly the value `yaml` gives it
 * (core schema, integers beyond 2^53 kept as text, null-prototype maps).
 * The most common shape (`key: value` lines with plain or simply-quoted
 * strings, one level of nested mapping) is read by a character scan; the
 * rest of the subset (typed scalars, multi-line and escaped quoted scalars,
 * block scalars, sequences) by `parseFrontmatterSubset`. Anything else —
 * anchors, tags, flow maps, comments after values, duplicate keys — is left
 * to the `yaml` package. Tests check it agrees with `yaml` on everything it
 * accepts.
 */
export function parseSimpleFrontmatter(yamlText: string): Record<string, unknown> | undefined {
  const fast = scanFrontmatter(yamlText)
  return fast === UNSURE ? parseFrontmatterSubset(yamlText) : fast
}

/**
 * The definition of the subset the character scan reads, line by line with
 * regular expressions: the scan is a faster form of it, and tests check the
 * two agree (and that `parseSimpleFrontmatter` gives the same wherever it
 * gives a value).
 */
export function parseSimpleFrontmatterByRegex(
  yamlText: string,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = Object.create(null)
  let nested: Record<string, string> | undefined
  let nestedIndent = 0
  let pendingKey: string | undefined
  for (const line of yamlText.split('\n')) {
    if (line.trim() === '' || COMMENT_LINE.test(line)) continue
    const top = TOP_ENTRY.exec(line)
    if (top) {
      if (pendingKey !== undefined) return undefined // `key:` with no children would be null
      const key = top[1]!
      if (key === '__proto__' || key in out || NOT_STRING.test(key)) return undefined
      const rawValue = top[2]
      if (rawValue === undefined || rawValue.trim() === '') {
        nested = Object.create(null) as Record<string, string>
        nestedIndent = 0
        out[key] = nested
        pendingKey = key
        continue
      }
      const value = simpleScalar(rawValue)
      if (value === undefined) return undefined
      out[key] = value
      nested = undefined
      continue
    }
    const child = NESTED_ENTRY.exec(line)
    if (!child || !nested) return undefined
    const indent = child[1]!.length
    if (nestedIndent === 0) nestedIndent = indent
    else if (indent !== nestedIndent) return undefined
    const key = child[2]!
    const value = simpleScalar(child[3]!)
    if (value === undefined || key === '__proto__' || key in nested || NOT_STRING.test(key))
      return undefined
    nested[key] = value
    pendingKey = undefined
  }
  return pendingKey === undefined && Object.keys(out).length > 0 ? out : undefined
}

const COMMENT_LINE = /^[ ]*#/
const TOP_ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?$/
const NESTED_ENTRY = /^([ ]+)([A-Za-z_][A-Za-z0-9_.-]*):[ ]+(.+)$/
// Plain scalars: no leading indicator, no `: `, ` #`, tabs, flow brackets,
// control characters or a trailing `:`; and not something the core schema
// would read as null, bool or number.
const PLAIN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
  /^[^-?:,[\]{}#&*!|>'"%@`\s](?:[^\t\0-\x1f\x7f[\]{}\ufeff]*[^\s:\t\0-\x1f\x7f[\]{}\ufeff])?$/
const NOT_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
const DOUBLE_QUOTED = /^"([^"\\\0-\x1f\x7f]*)"$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
const SINGLE_QUOTED = /^'([^'\0-\x1f\x7f]*)'$/

function simpleScalar(raw: string): string | undefined {
  const text = raw.replace(/[ ]+$/, '')
  const quoted = DOUBLE_QUOTED.exec(text) ?? SINGLE_QUOTED.exec(text)
  if (quoted) return quoted[1]
  if (!PLAIN.test(text) || text.includes(': ') || text.includes(' #') || NOT_STRING.test(text))
    return undefined
  return text
}

const UNSURE = Symbol('unsure')

// Keys most frontmatter uses, as the literals that are already interned:
// storing or testing a property under a freshly sliced string makes V8
// intern it first, which costs more than the rest of a line's scan.
const COMMON_KEYS = new Map<string, string>(
  [
    'name',
    'description',
    'license',
    'compatibility',
    'metadata',
    'allowed-tools',
    'version',
    'author',
    'category',
    'tags',
    'homepage',
    'repository',
  ].map((k) => [k, k]),
)

const SPACE = 0x20
const HASH = 0x23
const COLON = 0x3a
const DQUOTE = 0x22
const SQUOTE = 0x27

/** `[A-Za-z_]`: the first character of a key. */
function isKeyStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f
}

/** `[A-Za-z0-9_-]`, plus `.` in nested keys. */
function isKeyChar(c: number, dot: boolean): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f ||
    c === 0x2d ||
    (dot && c === 0x2e)
  )
}

// Printable ASCII that `PLAIN` accepts as a scalar's first character.
const PLAIN_START = new Uint8Array(0x80)
for (let c = SPACE + 1; c < 0x7f; c++) PLAIN_START[c] = 1
for (const c of '-?:,[]{}#&*!|>\'"%@`') PLAIN_START[c.charCodeAt(0)] = 0

/** A character that may open a plain scalar `PLAIN` accepts (ASCII only). */
function isPlainStart(c: number): boolean {
  return c < 0x80 && PLAIN_START[c] === 1
}

/** A character `PLAIN` accepts inside a scalar (printable ASCII or non-space Unicode). */
function isPlainInner(c: number): boolean {
  if (c < 0x7f) return c >= SPACE && c !== 0x5b && c !== 0x5d && c !== 0x7b && c !== 0x7d
  return c >= 0xa0 && c !== 0xfeff && c !== 0x2028 && c !== 0x2029
}

/** The first characters `NOT_STRING` can match: `~`, n, N, t, T, f, F, `+`, `.`, digits. */
function mayNotBeString(c: number): boolean {
  return (
    c === 0x7e ||
    c === 0x6e ||
    c === 0x4e ||
    c === 0x74 ||
    c === 0x54 ||
    c === 0x66 ||
    c === 0x46 ||
    c === 0x2b ||
    c === 0x2e ||
    (c >= 0x30 && c <= 0x39)
  )
}

/**
 * The value of `text.slice(start, end)` as `simpleScalar` reads it, or
 * `UNSURE` for anything less plain (which the regular expressions then decide).
 */
function scanScalar(text: string, start: number, end: number): string | typeof UNSURE {
  while (end > start && text.charCodeAt(end - 1) === SPACE) end--
  if (end === start) return UNSURE
  const first = text.charCodeAt(start)
  const last = text.charCodeAt(end - 1)
  if (first === DQUOTE || first === SQUOTE) {
    if (end - start < 2 || last !== first) return UNSURE
    for (let i = start + 1; i < end - 1; i++) {
      const c = text.charCodeAt(i)
      if (c === first || c === 0x5c || c < SPACE || c === 0x7f || c === 0x2028 || c === 0x2029)
        return UNSURE
    }
    return text.slice(start + 1, end - 1)
  }
  if (!isPlainStart(first)) return UNSURE
  if (last >= 0x7f || last === COLON || !isPlainInner(last)) return UNSURE
  let prev = first
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i)
    if (!isPlainInner(c)) return UNSURE
    if ((c === SPACE && prev === COLON) || (c === HASH && prev === SPACE)) return UNSURE
    prev = c
  }
  const value = text.slice(start, end)
  if (mayNotBeString(first) && NOT_STRING.test(value)) return UNSURE
  return value
}

/** A key that is plain data in both parsers: not `__proto__`, null, a bool or a number. */
function plainKey(key: string): boolean {
  return key !== '__proto__' && !(mayNotBeString(key.charCodeAt(0)) && NOT_STRING.test(key))
}

/**
 * The common case of `parseSimpleFrontmatterByRegex` as one pass over the
 * characters, without a regular expression or a string per line. Returns
 * what the regular expressions would, or `UNSURE` whenever a line is not
 * plainly inside the subset (including every input they decline).
 */
function scanFrontmatter(text: string): Record<string, unknown> | typeof UNSURE {
  const out: Record<string, unknown> = Object.create(null)
  let keys = 0
  let nested: Record<string, string> | undefined
  let nestedIndent = 0
  let pendingKey = false
  const n = text.length
  let pos = 0
  while (pos < n) {
    let eol = text.indexOf('\n', pos)
    if (eol === -1) eol = n
    const lineStart = pos
    pos = eol + 1
    let i = lineStart
    while (i < eol && text.charCodeAt(i) === SPACE) i++
    if (i === eol) continue // blank
    const c = text.charCodeAt(i)
    if (c === HASH) continue // comment
    if (!isKeyStart(c)) return UNSURE
    const indent = i - lineStart
    const keyStart = i
    i++
    while (i < eol && isKeyChar(text.charCodeAt(i), indent > 0)) i++
    if (i === eol || text.charCodeAt(i) !== COLON) return UNSURE
    const sliced = text.slice(keyStart, i)
    const key = COMMON_KEYS.get(sliced) ?? sliced
    i++ // the colon
    if (i < eol && text.charCodeAt(i) !== SPACE) return UNSURE
    while (i < eol && text.charCodeAt(i) === SPACE) i++
    if (!plainKey(key)) return UNSURE
    if (indent === 0) {
      if (pendingKey || key in out) return UNSURE
      keys++
      if (i === eol) {
        nested = Object.create(null) as Record<string, string>
        nestedIndent = 0
        out[key] = nested
        pendingKey = true
        continue
      }
      const value = scanScalar(text, i, eol)
      if (value === UNSURE) return UNSURE
      out[key] = value
      nested = undefined
      continue
    }
    if (!nested || i === eol || key in nested) return UNSURE
    if (nestedIndent === 0) nestedIndent = indent
    else if (indent !== nestedIndent) return UNSURE
    const value = scanScalar(text, i, eol)
    if (value === UNSURE) return UNSURE
    nested[key] = value
    pendingKey = false
  }
  return !pendingKey && keys > 0 ? out : UNSURE
}
