import { SkillHostError } from '../common/errors.js'
import { parseSimpleFrontmatter } from './parse-simple-frontmatter.js'
import { keepExactIntegers, parseYamlDocument, yamlErrorSentence } from './parse-yaml-document.js'

/** The two halves of a SKILL.md: parsed frontmatter and the markdown body. */
export interface ParsedSkillMd {
  readonly frontmatter: Readonly<Record<string, unknown>>
  readonly body: string
  /** True when the file has no frontmatter (only with `allowMissing`): `frontmatter` is empty, `body` the whole file. */
  readonly missing?: true
}

/** Limits applied while parsing frontmatter. */
export interface ParseSkillMdOptions {
  /** Largest frontmatter accepted, in UTF-8 bytes. Default 64 KiB. */
  readonly maxFrontmatterBytes?: number
  /** Largest number of YAML alias nodes resolved. Default 100; defeats alias bombs. */
  readonly maxAliasCount?: number
  /**
   * Accept a file with no frontmatter at all, as Claude Code does (a lenient
   * host then takes the name from the folder and the description from the
   * body). Default false: the spec requires frontmatter.
   */
  readonly allowMissing?: boolean
}

/** Default frontmatter byte cap: real-world frontmatter is a few hundred bytes. */
export const DEFAULT_MAX_FRONTMATTER_BYTES = 64 * 1024
/** Default alias cap handed to the `yaml` package. */
export const DEFAULT_MAX_ALIAS_COUNT = 100

const encoder = new TextEncoder()
// Both fences are whole lines: `---`, optional blanks, then a newline (or, closing, end of file).
// Blanks after the opening `---` are common in the wild, and YAML and skills-ref accept them.
const OPENING_FENCE = /^---[ \t]*(?:\n|$)/
const CLOSING_FENCE = /\n---[ \t]*(?:\n|$)/g

function invalid(message: string, cause?: unknown): SkillHostError {
  return new SkillHostError(
    'E_SKILL_MANIFEST_INVALID',
    message,
    cause === undefined ? {} : { cause },
  )
}

/**
 * Splits a SKILL.md into YAML frontmatter (between `---` lines) and body.
 * Accepts a BOM, CRLF line endings and blanks after either `---`. Throws `E_SKILL_MANIFEST_INVALID` when
 * the frontmatter is missing (unless `allowMissing`), unterminated, too large, not valid YAML, uses too
 * many aliases, or is not a mapping. The body keeps the file's text after the
 * closing `---` line, with line endings normalized to `\n`.
 */
export function parseSkillMd(text: string, options: ParseSkillMdOptions = {}): ParsedSkillMd {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const source = unmarked.includes('\r') ? unmarked.replace(/\r\n?/g, '\n') : unmarked
  const opening = OPENING_FENCE.exec(source)
  if (!opening) {
    if (options.allowMissing)
      return { frontmatter: Object.create(null), body: source, missing: true }
    throw invalid('SKILL.md has no YAML frontmatter; start the file with a line "---".')
  }
  // Searched from the opening line's own newline, so an empty frontmatter closes at once.
  const start = opening[0].length
  CLOSING_FENCE.lastIndex = start - 1
  const match = opening[0].endsWith('\n') ? CLOSING_FENCE.exec(source) : null
  if (!match) throw invalid('SKILL.md frontmatter is not closed; add a line "---" after it.')
  const end = match.index
  const yamlText = source.slice(start, end + 1)
  const body = source.slice(end + match[0].length)

  const maxBytes = options.maxFrontmatterBytes ?? DEFAULT_MAX_FRONTMATTER_BYTES
  if (yamlText.length > maxBytes / 4 && encoder.encode(yamlText).byteLength > maxBytes) {
    throw invalid(`SKILL.md frontmatter exceeds ${maxBytes} bytes; move long text into the body.`)
  }
  return { frontmatter: parseFrontmatterYaml(yamlText, options), body }
}

function parseFrontmatterYaml(
  yamlText: string,
  options: ParseSkillMdOptions,
): Record<string, unknown> {
  // Most frontmatter is flat `key: value` text; the full YAML parser costs
  // ~60-100 µs a document, which alone would cap discovery below 10k skills/s.
  const simple = parseSimpleFrontmatter(yamlText)
  if (simple !== undefined) return simple
  const doc = parseYamlDocument(yamlText, 'SKILL.md frontmatter', { strict: true })
  const first = doc.errors[0]
  if (first) {
    const line = first.linePos?.[0]?.line
    const where = line === undefined ? '' : ` (frontmatter line ${line})`
    throw invalid(
      `SKILL.md frontmatter is not valid YAML${where}: ${yamlErrorSentence(first)}`,
      first,
    )
  }
  keepExactIntegers(doc)
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: options.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT })
  } catch (cause) {
    // The yaml package throws a ReferenceError for excessive aliasing.
    throw invalid(
      'SKILL.md frontmatter uses too many YAML aliases; expand them or remove them.',
      cause,
    )
  }
  if (value === null || value === undefined) {
    throw invalid('SKILL.md frontmatter is empty; it needs at least name and description.')
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('SKILL.md frontmatter must be a YAML mapping of keys to values.')
  }
  // Copy into a null-prototype object so keys such as `__proto__` are plain data.
  const out: Record<string, unknown> = Object.create(null)
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) out[key] = v
  return out
}
