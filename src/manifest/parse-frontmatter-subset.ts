import {
  blockScalarValue,
  doubleQuotedValue,
  typePlain,
  unfoldLines,
} from './frontmatter-scalars.js'
import { readJsonFlow } from './read-json-flow.js'

/**
 * The wider subset of YAML the fast frontmatter path reads, line by line:
 * a top-level mapping whose values are plain scalars (typed by the core
 * schema, folded over more-indented lines), single- or double-quoted
 * scalars (escapes decoded, folded over lines), literal and folded block
 * scalars with a chomping indicator, one-line flow sequences of scalars,
 * block sequences of scalars, flow collections or compact mappings, JSON
 * objects and arrays on one line or pretty-printed over several
 * (`readJsonFlow`), nested block mappings (up to
 * `MAX_SUBSET_DEPTH` levels) of the same, a plain or quoted scalar on the
 * lines below its key, or nothing (null). It returns `undefined` for anything else (anchors, tags, flow
 * maps that are not JSON, comments after a value, tabs, control characters, duplicate or
 * non-string keys, more-indented lines it cannot place), so the `yaml`
 * package decides every other case. Property tests check that what it
 * accepts is exactly what `yaml` gives.
 */
export function parseFrontmatterSubset(text: string): Record<string, unknown> | undefined {
  if (!text.endsWith('\n') || UNSAFE.test(text)) return undefined
  const lines = text.split('\n')
  lines.pop()
  const out: Record<string, unknown> = Object.create(null)
  let keys = 0
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (isBlankOrComment(line)) {
      i++
      continue
    }
    const m = TOP_KEY.exec(line)
    if (!m || !usableKey(m[1]!, out)) return undefined
    keys++
    const col = line.length - (m[2] ?? '').length
    const read = col < line.length ? readValue(lines, i, col, 0) : readChildren(lines, i + 1, 0, 1)
    if (read === undefined) return undefined
    out[m[1]!] = read.value
    i = read.next
  }
  return keys > 0 ? out : undefined
}

// Tabs, control characters (C0, DEL, C1), BOM and the Unicode line separators:
// each changes what YAML reads, so none is in the subset.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is being rejected
const UNSAFE = /[\0-\x09\x0b-\x1f\x7f-\x9f\ufeff\u2028\u2029]/
const TOP_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/
const NESTED_KEY = /^( +)([A-Za-z_][A-Za-z0-9_.-]*):(?: +(.*))?$/
// A sequence item that opens a compact mapping: `- key:` and a space or the line's end.
const ITEM_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*:(?: |$)/
const BLOCK_HEADER = /^[|>][-+]? *$/
const NOT_STRING_KEY =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
// Characters that may not open a plain scalar here (YAML indicators, quotes, space).
const NOT_PLAIN_START = new Set('-?:,[]{}#&*!|>\'"%@` ')

type Read = { readonly value: unknown; readonly next: number } | undefined

const indentOf = (line: string): number => {
  let n = 0
  while (line.charCodeAt(n) === 0x20) n++
  return n
}

function isBlankOrComment(line: string): boolean {
  const n = indentOf(line)
  return n === line.length || line[n] === '#'
}

const isBlank = (line: string): boolean => indentOf(line) === line.length

function usableKey(key: string, into: Record<string, unknown>): boolean {
  return key !== '__proto__' && !(key in into) && !NOT_STRING_KEY.test(key)
}

/** The next line that is neither blank nor a comment, from `i`. */
function nextContent(lines: readonly string[], i: number): number {
  while (i < lines.length && isBlankOrComment(lines[i]!)) i++
  return i
}

/** Deepest mapping the subset reads (the top level is 1); deeper ones go to `yaml`. */
const MAX_SUBSET_DEPTH = 8

/**
 * The value of a key at indentation `owner` written with nothing after its
 * colon: a block sequence (at the key's indentation or deeper), a mapping
 * or a scalar on the more-indented lines below, or null. `depth` is the
 * key's mapping's nesting level.
 */
function readChildren(lines: readonly string[], from: number, owner: number, depth: number): Read {
  const k = nextContent(lines, from)
  const line = lines[k]
  if (line === undefined) return { value: null, next: k }
  const indent = indentOf(line)
  if (indent >= owner && line.startsWith('- ', indent))
    return readSequence(lines, k, indent, owner, depth)
  if (indent <= owner) return { value: null, next: k }
  if (NESTED_KEY.test(line)) {
    return depth < MAX_SUBSET_DEPTH ? readNestedMap(lines, k, indent, depth + 1) : undefined
  }
  // A scalar on the lines below its key; a block scalar's header there is left to `yaml`.
  const c = line[indent]
  return c === '|' || c === '>' ? undefined : readValue(lines, k, indent, owner)
}

/**
 * Block sequence items `- value` at `indent`, each a scalar, a flow
 * collection or a compact mapping (`- key: value`, its further keys aligned
 * under the first), for a key at `owner` (the items may share its
 * indentation) in a mapping at nesting level `depth`.
 */
function readSequence(
  lines: readonly string[],
  from: number,
  indent: number,
  owner: number,
  depth: number,
): Read {
  const items: unknown[] = []
  let i = from
  for (;;) {
    i = nextContent(lines, i)
    const line = lines[i]
    if (line === undefined) break
    const n = indentOf(line)
    if (n < indent) break
    // At the key's own indentation, a line that is no item is the key's next sibling.
    if (n === indent && indent === owner && !line.startsWith('- ', n)) break
    if (n !== indent || !line.startsWith('- ', n)) return undefined
    const col = indentOf(line.slice(n + 1)) + n + 1
    const c = line[col]
    if (c === undefined || c === '|' || c === '>') return undefined
    const read = ITEM_KEY.test(line.slice(col))
      ? depth < MAX_SUBSET_DEPTH
        ? readNestedMap(lines, i, col, depth + 1, `${' '.repeat(col)}${line.slice(col)}`)
        : undefined
      : readValue(lines, i, col, indent + 1)
    if (read === undefined) return undefined
    items.push(read.value)
    i = read.next
  }
  return { value: items, next: i }
}

/**
 * `key: value` lines at `indent`, a mapping at nesting level `depth`; a key
 * with nothing after it owns the lines below. A compact mapping in a
 * sequence item gives its first line as `first`, the `- ` blanked out: the
 * same columns, so values are still read from `lines`.
 */
function readNestedMap(
  lines: readonly string[],
  from: number,
  indent: number,
  depth: number,
  first?: string,
): Read {
  const map: Record<string, unknown> = Object.create(null)
  let i = from
  for (;;) {
    i = nextContent(lines, i)
    const line = i === from && first !== undefined ? first : lines[i]
    if (line === undefined || indentOf(line) < indent) break
    const m = NESTED_KEY.exec(line)
    if (!m || m[1]!.length !== indent || !usableKey(m[2]!, map)) return undefined
    const rest = m[3] ?? ''
    const read =
      rest === ''
        ? readChildren(lines, i + 1, indent, depth)
        : readValue(lines, i, line.length - rest.length, indent)
    if (read === undefined) return undefined
    map[m[2]!] = read.value
    i = read.next
  }
  return { value: map, next: i }
}

/**
 * The value starting at column `col` of `lines[i]`, a key or item owned at
 * indentation `owner`: any line it continues onto is indented deeper.
 */
function readValue(lines: readonly string[], i: number, col: number, owner: number): Read {
  const line = lines[i]!
  const c = line[col]
  if (c === '|' || c === '>') {
    if (!BLOCK_HEADER.test(line.slice(col))) return undefined
    return readBlockScalar(lines, i + 1, owner, c === '|', line[col + 1] ?? '')
  }
  if (c === '[' || c === '{') {
    // Flow sequences of plain scalars, else one-line JSON (objects, nested arrays).
    const items = (c === '[' ? readFlowSequence(line, col) : undefined) ?? readJsonFlow(line, col)
    return items === undefined ? readJsonLines(lines, i, col, owner) : { value: items, next: i + 1 }
  }
  if (c === "'" || c === '"') return readQuoted(lines, i, col, owner)
  return readPlain(lines, i, col, owner)
}

/**
 * JSON over several lines (as tools pretty-print `metadata`), from column
 * `col` of `lines[i]` through the lines below indented deeper than `owner`:
 * no string may span a line break, so joining the lines with `\n` changes no
 * value (`readJsonFlow`'s whitespace).
 */
function readJsonLines(lines: readonly string[], i: number, col: number, owner: number): Read {
  let last = i
  for (let k = i + 1; k < lines.length; k++) {
    const line = lines[k]!
    if (isBlank(line)) continue
    if (indentOf(line) <= owner) break
    last = k
  }
  if (last === i) return undefined
  const text = [lines[i]!.slice(col), ...lines.slice(i + 1, last + 1)].join('\n')
  const value = readJsonFlow(text, 0)
  return value === undefined ? undefined : { value, next: last + 1 }
}

/** True when `text` (trimmed) is plain on one line: no indicator start, no `: `, ` #` or trailing `:`. */
function plainLine(text: string): boolean {
  return (
    text !== '' &&
    !NOT_PLAIN_START.has(text[0]!) &&
    !text.includes(': ') &&
    !text.includes(' #') &&
    !text.endsWith(':')
  )
}

function readPlain(lines: readonly string[], i: number, col: number, owner: number): Read {
  const first = lines[i]!.slice(col).trimEnd()
  if (!plainLine(first)) return undefined
  let out = first
  let next = i + 1
  let breaks = 0
  for (let k = i + 1; k < lines.length; k++) {
    const line = lines[k]!
    if (isBlank(line)) {
      breaks++
      continue
    }
    if (indentOf(line) <= owner) break
    const text = line.trim()
    if (!plainLine(text)) return undefined
    out += (breaks === 0 ? ' ' : '\n'.repeat(breaks)) + text
    breaks = 0
    next = k + 1
  }
  const value = typePlain(out)
  // A folded scalar is a string here; one that reads as a number is left to `yaml`.
  if (next > i + 1 && typeof value !== 'string') return undefined
  return { value, next }
}

/** The column just past the closing quote on `line` from `from`, or -1 when the line does not close it. */
function closingQuote(line: string, from: number, quote: string): number {
  for (let p = from; p < line.length; p++) {
    const ch = line[p]
    if (quote === '"' && ch === '\\') p++
    else if (ch === quote) {
      if (quote === "'" && line[p + 1] === "'") p++
      else return p + 1
    }
  }
  return -1
}

function readQuoted(lines: readonly string[], i: number, col: number, owner: number): Read {
  const quote = lines[i]![col]!
  let source = ''
  for (let k = i; k < lines.length; k++) {
    const line = k === i ? lines[i]!.slice(col) : lines[k]!
    if (k > i && !isBlank(line) && indentOf(line) <= owner) return undefined
    // A backslash ending the line escapes the break: the scan goes on past it.
    const end = closingQuote(line, k === i ? 1 : 0, quote)
    if (end === -1) {
      source += `${line}\n`
      continue
    }
    if (line.slice(end).trim() !== '') return undefined
    source += line.slice(0, end)
    const value =
      quote === "'"
        ? unfoldLines(source.slice(1, -1)).replace(/''/g, "'")
        : doubleQuotedValue(source)
    return value === undefined ? undefined : { value, next: k + 1 }
  }
  return undefined
}

/**
 * A literal or folded block scalar's content, from line `from`: lines
 * indented deeper than `owner`, all at the first content line's indent
 * (deeper lines only in a literal one), empty lines no deeper than it.
 */
function readBlockScalar(
  lines: readonly string[],
  from: number,
  owner: number,
  literal: boolean,
  chomp: string,
): Read {
  let k = from
  while (k < lines.length && isBlank(lines[k]!)) k++
  const first = lines[k]
  if (first === undefined || indentOf(first) <= owner) return undefined
  const indent = indentOf(first)
  const content: string[] = []
  let empty = 0
  let next = from
  for (let j = from; j < lines.length; j++) {
    const line = lines[j]!
    const n = indentOf(line)
    if (n === line.length) {
      if (n > indent) return undefined
      empty++
      continue
    }
    if (n < indent) break
    if (n > indent && !literal) return undefined
    for (; empty > 0; empty--) content.push('')
    content.push(line.slice(indent))
    next = j + 1
  }
  return { value: blockScalarValue(literal, chomp, content, empty), next: next + empty }
}

/** A flow sequence of scalars that opens at `col` and closes on the same line. */
function readFlowSequence(line: string, col: number): unknown[] | undefined {
  const items: unknown[] = []
  let p = col + 1
  while (line[p] === ' ') p++
  if (line[p] === ']') return line.slice(p + 1).trim() === '' ? items : undefined
  for (;;) {
    const c = line[p]
    let end: number
    if (c === "'" || c === '"') {
      end = closingQuote(line, p + 1, c)
      if (end === -1) return undefined
      const source = line.slice(p, end)
      const value = c === "'" ? source.slice(1, -1).replace(/''/g, "'") : doubleQuotedValue(source)
      if (value === undefined) return undefined
      items.push(value)
    } else {
      end = p
      while (end < line.length && !FLOW_PLAIN_END.has(line[end]!)) end++
      const text = line.slice(p, end).trimEnd()
      if (text === '' || NOT_PLAIN_START.has(text[0]!) || /[:#'"]/.test(text)) return undefined
      items.push(typePlain(text))
    }
    p = end
    while (line[p] === ' ') p++
    if (line[p] === ']') return line.slice(p + 1).trim() === '' ? items : undefined
    if (line[p] !== ',') return undefined
    p++
    while (line[p] === ' ') p++
  }
}

const FLOW_PLAIN_END = new Set(',[]{}')
