/**
 * A fast path for the frontmatter most skills have: `key: value` lines with
 * plain or simply-quoted string values, and one level of nested `key: value`
 * mappings (e.g. `metadata`). It accepts only a strict subset of YAML whose
 * meaning is unambiguous, and returns `undefined` for anything else — numbers,
 * booleans, nulls, lists, block scalars, anchors, escapes, comments after
 * values, duplicate keys — so the `yaml` package decides every other case.
 * Tests check it agrees with `yaml` on everything it accepts.
 */
export function parseSimpleFrontmatter(yamlText: string): Record<string, unknown> | undefined {
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
