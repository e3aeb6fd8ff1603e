/**
 * The scalar rules of `parseFrontmatterSubset`, each written to give exactly
 * what the `yaml` package (YAML 1.2, core schema, as `parseSkillMd` composes
 * it) gives for the same source: core-schema typing of plain scalars, line
 * folding of plain and quoted scalars, double-quote escapes, and literal and
 * folded block scalars. Each returns `undefined` where it is not certain; the
 * caller then leaves the whole document to `yaml`.
 */

const NULL = /^(?:~|null|Null|NULL)$/
const TRUE = /^(?:true|True|TRUE)$/
const FALSE = /^(?:false|False|FALSE)$/
const INT = /^[-+]?[0-9]+$/
const OCT = /^0o[0-7]+$/
const HEX = /^0x[0-9a-fA-F]+$/
const NAN_INF = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/

/** The first characters a core-schema null, bool or number can have. */
const NOT_STRING_START = new Set('~nNtTfF+-.0123456789')

/**
 * A plain scalar's value under the core schema: null, a bool, a number, or
 * the text itself. An integer beyond 2^53 keeps its text, as
 * `keepExactIntegers` makes the `yaml` path do.
 */
export function typePlain(text: string): unknown {
  if (!NOT_STRING_START.has(text[0] ?? '')) return text
  if (NULL.test(text)) return null
  if (TRUE.test(text)) return true
  if (FALSE.test(text)) return false
  let n: number
  if (OCT.test(text)) n = Number.parseInt(text.slice(2), 8)
  else if (HEX.test(text)) n = Number.parseInt(text.slice(2), 16)
  else if (INT.test(text)) n = Number.parseInt(text, 10)
  else if (NAN_INF.test(text))
    return text.slice(-3).toLowerCase() === 'nan'
      ? Number.NaN
      : text[0] === '-'
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY
  else if (FLOAT.test(text)) n = Number.parseFloat(text)
  else return text
  return Number.isInteger(n) && !Number.isSafeInteger(n) ? text : n
}

/**
 * Folds the lines of a flow scalar's source as YAML 1.2 does: a single line
 * break between text becomes a space, `k` empty lines become `k` breaks,
 * and the spaces around each break are dropped.
 */
export function unfoldLines(source: string): string {
  const lines = source.split('\n')
  if (lines.length === 1) return source
  let out = lines[0]!.replace(/ +$/, '')
  let sep = ' '
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i]!.trim()
    if (line === '') {
      if (sep === '\n') out += sep
      else sep = '\n'
    } else {
      out += sep + line
      sep = ' '
    }
  }
  return out + sep + lines[lines.length - 1]!.replace(/^ +/, '')
}

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
}

const HEX_DIGITS = /^[0-9a-fA-F]+$/

/**
 * The value of a double-quoted scalar's source (quotes included): escapes
 * decoded, lines folded, an escaped line break joining its lines without a
 * space. `undefined` for an escape YAML does not define.
 */
export function doubleQuotedValue(source: string): string | undefined {
  let out = ''
  const end = source.length - 1
  for (let i = 1; i < end; i++) {
    const ch = source[i]!
    if (ch === '\n') {
      let fold = ''
      while (source[i + 1] === ' ' || source[i + 1] === '\n') if (source[++i] === '\n') fold += '\n'
      out += fold || ' '
    } else if (ch === '\\') {
      const next = source[++i]!
      const code = ESCAPES[next]
      if (code !== undefined) out += code
      else if (next === '\n') while (source[i + 1] === ' ') i++
      else if (next === 'x' || next === 'u' || next === 'U') {
        const length = next === 'x' ? 2 : next === 'u' ? 4 : 8
        const digits = source.slice(i + 1, i + 1 + length)
        if (i + length >= end || !HEX_DIGITS.test(digits)) return undefined
        const point = Number.parseInt(digits, 16)
        if (point > 0x10ffff) return undefined
        out += String.fromCodePoint(point)
        i += length
      } else return undefined
    } else if (ch === ' ') {
      const start = i
      while (source[i + 1] === ' ') i++
      if (source[i + 1] !== '\n') out += source.slice(start, i + 1)
    } else out += ch
  }
  return out
}

/**
 * The value of a literal (`|`) or folded (`>`) block scalar from its content
 * lines (indentation removed; `''` for an empty line) and the number of
 * empty lines after its last content line. `chomp` is the header's `-`, `+`
 * or `''`. The caller has declined more-indented lines in a folded scalar.
 */
export function blockScalarValue(
  literal: boolean,
  chomp: string,
  lines: readonly string[],
  trailingEmpty: number,
): string {
  let out = ''
  let i = 0
  // Leading empty lines are kept as breaks, in either style.
  while (lines[i] === '') {
    out += '\n'
    i++
  }
  let sep = ''
  for (; i < lines.length; i++) {
    const line = lines[i]!
    if (literal) {
      out += sep + line
      sep = '\n'
    } else if (line === '') {
      if (sep === '\n') out += '\n'
      else sep = '\n'
    } else {
      out += sep + line
      sep = ' '
    }
  }
  if (chomp === '-') return out
  if (chomp === '+') return `${out}\n${'\n'.repeat(trailingEmpty)}`
  return `${out}\n`
}
