import { type IgnoredKey, ignoredKeys } from './claude-code-keys.js'
import { detachStrings } from './detach-strings.js'
import { firstParagraph } from './first-paragraph.js'
import { MAX_SKILL_NAME_LENGTH, skillNameProblems } from './skill-name-problems.js'

/** Names `skillNameProblems` finds nothing wrong with (when not too long): the common case. */
const VALID_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** A validated SKILL.md frontmatter. Unknown top-level keys are kept in `extra`. */
export interface SkillManifest {
  readonly name: string
  readonly description: string
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  /** `allowed-tools`, carried and never enforced; a YAML list is joined with spaces. */
  readonly allowedTools?: string
  /** A top-level `version` (not part of the spec): a hint for the skill's version. */
  readonly version?: string
  readonly extra: Readonly<Record<string, unknown>>
  /** Claude Code keys the skill uses that skillhost does not honour, with why (empty when none). */
  readonly ignored: readonly IgnoredKey[]
}

/** Options for `validateSkillManifest`. */
export interface ValidateSkillManifestOptions {
  /** The folder holding SKILL.md; `name` must equal it. Omit for programmatic skills. */
  readonly folderName?: string
  /** Turn the spec's warnings (and unknown keys) into errors. Default false. */
  readonly strict?: boolean
  /**
   * The SKILL.md body. When not `strict`, a missing description is taken from
   * its first paragraph (and a missing name from `folderName`), as Claude
   * Code does, each with a warning; strict validation keeps both required.
   */
  readonly body?: string
}

/** The verdict on one frontmatter: `manifest` is present exactly when `ok`. */
export interface SkillManifestValidation {
  readonly ok: boolean
  readonly manifest?: SkillManifest
  readonly errors: readonly string[]
  readonly warnings: readonly string[]
}

/** Frontmatter keys the agentskills.io spec defines. */
export const KNOWN_FRONTMATTER_KEYS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
])

/** Spec limits on frontmatter fields. */
export const MANIFEST_LIMITS = { description: 1024, compatibility: 500 } as const

function optionalText(
  frontmatter: Readonly<Record<string, unknown>>,
  key: string,
  soft: (m: string) => void,
): string | undefined {
  const value = frontmatter[key]
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  soft(`${key} must be a string; it was ignored`)
  return undefined
}

function readMetadata(
  value: unknown,
  soft: (m: string) => void,
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) {
    soft('metadata must be a mapping of string keys to string values; it was ignored')
    return undefined
  }
  const out: Record<string, string> = Object.create(null)
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const v = record[key]
    if (typeof v === 'string') out[key] = v
    else if (typeof v === 'number' || typeof v === 'boolean') {
      soft(`metadata.${key} is a ${typeof v}, not a string; it was converted`)
      out[key] = String(v)
    } else soft(`metadata.${key} is not a string; it was dropped`)
  }
  return out
}

function readAllowedTools(value: unknown, soft: (m: string) => void): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' ')
  soft('allowed-tools must be a string (or a list of strings); it was ignored')
  return undefined
}

/** Where one validation puts what it finds: errors, warnings, and `soft` (an error when strict, else a warning). */
interface Findings {
  readonly errors: string[]
  readonly warnings: string[]
  readonly soft: (message: string) => void
}

/** The trimmed `name` ('' when it is an error): the folder's when lenient and absent; spec and folder checks. */
function readName(
  frontmatter: Readonly<Record<string, unknown>>,
  options: ValidateSkillManifestOptions,
  found: Findings,
): string {
  let rawName = frontmatter.name
  if (options.strict !== true && rawName === undefined && options.folderName !== undefined) {
    rawName = options.folderName
    found.warnings.push(
      `name is missing; the folder name "${options.folderName}" is used, as Claude Code does (other agents skip this skill)`,
    )
  }
  if (typeof rawName !== 'string' || rawName.trim() === '') {
    found.errors.push('name is required and must be a non-empty string')
    return ''
  }
  const name = rawName.trim()
  if (!(name.length <= MAX_SKILL_NAME_LENGTH && VALID_NAME.test(name)))
    for (const problem of skillNameProblems(name)) found.soft(problem)
  if (options.folderName !== undefined && name !== options.folderName) {
    found.soft(`name "${name}" does not match its folder "${options.folderName}"`)
  }
  return name
}

/** The trimmed `description` ('' when it is an error): the body's first paragraph when lenient and absent; the length cap. */
function readDescription(
  frontmatter: Readonly<Record<string, unknown>>,
  options: ValidateSkillManifestOptions,
  found: Findings,
): string {
  let rawDescription = frontmatter.description
  if (options.strict !== true && rawDescription === undefined && options.body !== undefined) {
    const taken = firstParagraph(options.body, MANIFEST_LIMITS.description)
    if (taken !== '') {
      rawDescription = taken
      found.warnings.push(
        "description is missing; the body's first paragraph is used, as Claude Code does (other agents skip this skill)",
      )
    }
  }
  if (typeof rawDescription !== 'string' || rawDescription.trim() === '') {
    found.errors.push('description is required and must be a non-empty string')
    return ''
  }
  const description = rawDescription.trim()
  if (description.length > MANIFEST_LIMITS.description) {
    found.soft(
      `description is ${description.length} characters; the limit is ${MANIFEST_LIMITS.description}`,
    )
  }
  return description
}

/** Unknown keys an "unexpected frontmatter keys" error names before it counts the rest. */
const MAX_NAMED_KEYS = 20

/** The keys the spec does not know, carried (an error when strict), and a top-level `version` among them as text. */
function readExtra(
  frontmatter: Readonly<Record<string, unknown>>,
  options: ValidateSkillManifestOptions,
  errors: string[],
): { extra: Record<string, unknown>; version: string | undefined } {
  const extra: Record<string, unknown> = Object.create(null)
  const unknown: string[] = []
  for (const key of Object.keys(frontmatter)) {
    if (KNOWN_FRONTMATTER_KEYS.has(key)) continue
    extra[key] = frontmatter[key]
    unknown.push(key)
  }
  if (unknown.length > 0 && options.strict) {
    // A SKILL.md may carry thousands of keys: the message names the first few and counts the rest.
    const named = unknown.slice(0, MAX_NAMED_KEYS).join(', ')
    const more =
      unknown.length > MAX_NAMED_KEYS ? ` and ${unknown.length - MAX_NAMED_KEYS} more` : ''
    errors.push(
      `unexpected frontmatter keys: ${named}${more} (allowed: ${[...KNOWN_FRONTMATTER_KEYS].join(', ')})`,
    )
  }
  const rawVersion = extra.version
  const version =
    typeof rawVersion === 'string' || typeof rawVersion === 'number'
      ? String(rawVersion).trim()
      : undefined
  return { extra, version }
}

/**
 * Applies the agentskills.io rules to parsed frontmatter. An empty or
 * non-string `name` or `description` is always an error, and so is a missing
 * one that has no fallback. Everything else the
 * spec forbids (bad name characters or length, a name that differs from the
 * folder, over-long description or compatibility, non-string metadata values)
 * is a warning by default and an error when `strict`; strict mode also reports
 * unknown top-level keys. Not strict, an absent name or description falls
 * back as Claude Code's does (see `body`). Never throws.
 */
export function validateSkillManifest(
  frontmatter: Readonly<Record<string, unknown>>,
  options: ValidateSkillManifestOptions = {},
): SkillManifestValidation {
  const errors: string[] = []
  const warnings: string[] = []
  const found: Findings = {
    errors,
    warnings,
    soft: (message) => {
      ;(options.strict ? errors : warnings).push(message)
    },
  }
  const soft = found.soft
  const name = readName(frontmatter, options, found)
  const description = readDescription(frontmatter, options, found)

  const compatibility = optionalText(frontmatter, 'compatibility', soft)
  if (compatibility !== undefined && compatibility.length > MANIFEST_LIMITS.compatibility) {
    soft(
      `compatibility is ${compatibility.length} characters; the limit is ${MANIFEST_LIMITS.compatibility}`,
    )
  }
  const license = optionalText(frontmatter, 'license', soft)
  const metadata = readMetadata(frontmatter.metadata, soft)
  const allowedTools = readAllowedTools(frontmatter['allowed-tools'], soft)

  const { extra, version } = readExtra(frontmatter, options, errors)

  if (errors.length > 0) return { ok: false, errors, warnings }
  // Built field by field (same key order as a spread would give) to spare a
  // temporary object per optional field.
  const manifest = { name, description } as {
    -readonly [K in keyof SkillManifest]: SkillManifest[K]
  }
  if (license !== undefined) manifest.license = license
  if (compatibility !== undefined) manifest.compatibility = compatibility
  if (metadata !== undefined) manifest.metadata = metadata
  if (allowedTools !== undefined) manifest.allowedTools = allowedTools
  if (version) manifest.version = version
  manifest.extra = extra
  manifest.ignored = ignoredKeys(frontmatter)
  // A catalog keeps the manifest of every skill: detached, it does not keep each SKILL.md's text.
  return { ok: true, manifest: detachStrings(manifest), errors, warnings }
}
