import type { RE2JS } from 're2js'
import { SkillHostError } from '../errors.js'
import { compileLinearRegExp } from '../linear-regexp.js'
import { shortTitle, utf8Length } from './artifact-text.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'

/** What to search for. Literal matching is the default; `regex: true` opts into an RE2 (linear-time) regex. */
export interface GrepOptions {
  readonly pattern: string
  readonly regex?: boolean
  readonly ignoreCase?: boolean
  /** Lines shown before and after each match (0 to `maxContextLines`). */
  readonly context?: number
  /** Most matches returned (1 to `maxMatches`). */
  readonly maxMatches?: number
}

/** A grep over an artifact's lines, formatted like `grep -n` (`12:` match, `11-` context, `--` gap). */
export interface GrepResult {
  readonly text: string
  /** Matches shown. */
  readonly matches: number
  /** Matching line numbers shown (1-based). */
  readonly matchLines: readonly number[]
  /** More matches exist past `maxMatches`. */
  readonly moreMatches: boolean
  /** Lines scanned; less than `totalLines` when the scan cap stopped the search. */
  readonly scannedLines: number
  readonly totalLines: number
  /** The output byte cap cut the listing short. */
  readonly truncated: boolean
}

const invalid = (message: string) => new SkillHostError('E_ARTIFACT_READ_INVALID', message)

/** Builds the line test for `options`, or throws `E_ARTIFACT_READ_INVALID` for a refused pattern. */
export function compileGrepPattern(options: GrepOptions): (line: string) => boolean {
  const { pattern } = options
  if (pattern.length === 0) throw invalid('The grep pattern is empty.')
  if (pattern.length > ARTIFACT_READ_LIMITS.maxPatternLength) {
    throw invalid(
      `The grep pattern is ${pattern.length} characters; the limit is ${ARTIFACT_READ_LIMITS.maxPatternLength}.`,
    )
  }
  if (!options.regex) {
    if (!options.ignoreCase) return (line) => line.includes(pattern)
    const needle = pattern.toLowerCase()
    return (line) => line.toLowerCase().includes(needle)
  }
  // RE2 semantics: matching time is linear in the line, whatever the pattern,
  // so a model-supplied pattern can never block the host's main thread.
  // Backreferences and lookaround have no linear-time algorithm and do not compile.
  let re: RE2JS
  try {
    re = compileLinearRegExp(pattern, options.ignoreCase === true)
  } catch {
    throw invalid(
      'The regex does not compile. Patterns use RE2 syntax (no backreferences or lookaround); or search literally (regex: false).',
    )
  }
  // Whole lines are tested: linear time needs no prefix cut, and the scan cap bounds the total.
  return (line) => re.test(line)
}

function clampInt(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  what: string,
): number {
  const n = value ?? fallback
  if (!Number.isInteger(n) || n < min || n > max)
    throw invalid(`${what} must be an integer from ${min} to ${max}.`)
  return n
}

function shown(line: string): string {
  return shortTitle(line, ARTIFACT_READ_LIMITS.maxShownLineLength)
}

/** Searches `lines` and formats the hits within the caps. Throws `E_ARTIFACT_READ_INVALID` for bad options. */
export function grepLines(
  lines: readonly string[],
  options: GrepOptions,
  maxBytes: number,
): GrepResult {
  const L = ARTIFACT_READ_LIMITS
  const context = clampInt(options.context, 0, 0, L.maxContextLines, 'context')
  const maxMatches = clampInt(
    options.maxMatches,
    L.defaultMaxMatches,
    1,
    L.maxMatches,
    'maxMatches',
  )
  const test = compileGrepPattern(options)
  const hits: number[] = []
  let scanned = 0
  let scannedBytes = 0
  let moreMatches = false
  for (; scanned < lines.length; scanned++) {
    const line = lines[scanned] as string
    scannedBytes += utf8Length(line) + 1
    if (scannedBytes > L.maxScanBytes && scanned > 0) break
    if (!test(line)) continue
    if (hits.length === maxMatches) {
      moreMatches = true
      break
    }
    hits.push(scanned)
  }
  const out: string[] = []
  const matchLines: number[] = []
  const hitSet = new Set(hits)
  let used = 0
  let truncated = false
  let next = 0 // first line index not yet printed
  outer: for (const hit of hits) {
    const from = Math.max(hit - context, next)
    const to = Math.min(hit + context, lines.length - 1)
    if (from > to) continue // already printed as context of an earlier match
    if (out.length > 0 && from > next) out.push('--')
    for (let i = from; i <= to; i++) {
      const isHit = hitSet.has(i)
      const entry = `${i + 1}${isHit ? ':' : '-'}${shown(lines[i] as string)}`
      const size = utf8Length(entry) + 1
      if (used + size > maxBytes) {
        truncated = true
        break outer
      }
      out.push(entry)
      used += size
      if (isHit) matchLines.push(i + 1)
    }
    next = to + 1
  }
  return {
    text: out.join('\n'),
    matches: matchLines.length,
    matchLines,
    moreMatches,
    scannedLines: scanned,
    totalLines: lines.length,
    truncated,
  }
}
