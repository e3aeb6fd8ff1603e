import { doubleQuotedValue, typePlain } from './frontmatter-scalars.js'

/** Deepest JSON nesting the fast path reads; deeper goes to `yaml` (and its depth limit). */
const MAX_JSON_DEPTH = 16

// A JSON number; the core schema reads the same text as the same number (checked below).
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/

/**
 * A JSON object or array written as a YAML flow collection (as tools write
 * `metadata: {"a":{"b":["c"]}}`, or pretty-printed over lines joined by
 * `\n`), from column `col` of `line` to its end, as `yaml` reads it: double-quoted strings (decoded as YAML
 * decodes them), numbers, `true`, `false`, `null`, objects with string keys
 * and arrays, a trailing comma allowed as YAML allows it. Returns `undefined`, leaving the text to `yaml`, for anything
 * else: a duplicate or `__proto__` key, a space before `:`, `-0` or
 * an integer beyond 2^53, nesting past `MAX_JSON_DEPTH`, a string over a
 * line break, or text after the closing bracket. Objects have a null prototype, as the fast path's maps do.
 */
export function readJsonFlow(line: string, col: number): unknown {
  const reader = new JsonFlowReader(line, col)
  const value = reader.value(1)
  if (value === FAIL || line.slice(reader.p).trim() !== '') return undefined
  return value
}

const FAIL = Symbol('fail')

class JsonFlowReader {
  p: number
  constructor(
    private readonly line: string,
    col: number,
  ) {
    this.p = col
  }

  // Between tokens, line breaks are spaces too (JSON over several lines).
  private skipSpaces(): void {
    while (this.line[this.p] === ' ' || this.line[this.p] === '\n') this.p++
  }

  value(depth: number): unknown {
    const c = this.line[this.p]
    if (c === '{' || c === '[') return depth > MAX_JSON_DEPTH ? FAIL : this.collection(c, depth)
    if (c === '"') return this.string()
    let end = this.p
    while (end < this.line.length && !' \n,]}'.includes(this.line[end]!)) end++
    const text = this.line.slice(this.p, end)
    this.p = end
    if (text === 'true' || text === 'false' || text === 'null') return typePlain(text)
    if (!JSON_NUMBER.test(text) || text.startsWith('-0')) return FAIL
    const n = typePlain(text)
    return typeof n === 'number' && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : FAIL
  }

  private string(): unknown {
    const start = this.p
    for (let q = start + 1; q < this.line.length; q++) {
      const ch = this.line[q]
      // A string folded over a line break reads otherwise in YAML: left to `yaml`.
      if (ch === '\n') return FAIL
      if (ch === '\\') q++
      else if (ch === '"') {
        this.p = q + 1
        return doubleQuotedValue(this.line.slice(start, q + 1)) ?? FAIL
      }
    }
    return FAIL
  }

  private collection(open: string, depth: number): unknown {
    const close = open === '{' ? '}' : ']'
    const out: Record<string, unknown> | unknown[] = open === '{' ? Object.create(null) : []
    this.p++
    this.skipSpaces()
    if (this.line[this.p] === close) {
      this.p++
      return out
    }
    for (;;) {
      if (Array.isArray(out)) {
        const item = this.value(depth + 1)
        if (item === FAIL) return FAIL
        out.push(item)
      } else if (this.line[this.p] !== '"' || !this.member(out, depth)) return FAIL
      this.skipSpaces()
      const c = this.line[this.p]
      this.p++
      if (c === close) return out
      if (c !== ',') return FAIL
      this.skipSpaces()
      // A trailing comma, as YAML's flow collections allow it.
      if (this.line[this.p] === close) {
        this.p++
        return out
      }
    }
  }

  /** `"key":value` into `into`; false for a duplicate, `__proto__` or malformed member. */
  private member(into: Record<string, unknown>, depth: number): boolean {
    const key = this.string()
    if (typeof key !== 'string' || key === '__proto__' || key in into) return false
    if (this.line[this.p] !== ':') return false
    this.p++
    this.skipSpaces()
    const value = this.value(depth + 1)
    if (value === FAIL) return false
    into[key] = value
    return true
  }
}
