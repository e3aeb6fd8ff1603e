import { keepExactIntegers, parseYamlDocument } from '../../src/manifest/parse-yaml-document.js'

/**
 * What `parseSkillMd`'s `yaml` path gives for frontmatter `text` (strict,
 * integers beyond 2^53 kept as text), or the marker `'<yaml error>'` when
 * `yaml` reports an error: what the fast path must equal or decline.
 */
export function yamlPathValue(text: string): unknown {
  const doc = parseYamlDocument(text, 'SKILL.md frontmatter', { strict: true })
  if (doc.errors.length > 0) return '<yaml error>'
  keepExactIntegers(doc)
  return doc.toJS({ maxAliasCount: 100 })
}

/** A canonical text of a parsed value: types, -0 and NaN kept apart; prototypes ignored. */
export function canonicalValue(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? 'n:-0' : `n:${v}`
  if (typeof v === 'string') return `s:${JSON.stringify(v)}`
  if (v === null || typeof v !== 'object') return `${typeof v}:${String(v)}`
  if (Array.isArray(v)) return `[${v.map(canonicalValue).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o)
    .map((k) => `${JSON.stringify(k)}:${canonicalValue(o[k])}`)
    .join(',')}}`
}
