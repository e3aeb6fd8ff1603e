import { SkillHostError } from '../errors.js'
import { utf8Length } from './artifact-text.js'
import { ARTIFACT_READ_LIMITS } from './read-limits.js'

/** What to search for. Literal matching is the default; `regex: true` opts into a guarded regex. */
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

/**
 * Why a regex is refused, or undefined when it passes the guard. JavaScript
 * regexes backtrack with no time limit, so patterns whose matching time can
 * explode are refused up front: a repeated group that itself holds a
 * quantifier or an alternation (`(a+)+`, `(a|a)*`), backreferences, and more
 * than a few unbounded quantifiers. It is a heuristic that bounds the common
 * disasters, together with the line-length and scan caps; it is not a proof.
 */
export function regexHazard(pattern: string): string | undefined {
  const groups: { risky: boolean }[] = [{ risky: false }]
  let unbounded = 0
  let inClass = false
  let i = 0
  const quantifierAt = (
    at: number,
  ): { len: number; repeats: boolean; unbounded: boolean } | undefined => {
    const c = pattern[at]
    if (c === '*' || c === '+') return { len: 1, repeats: true, unbounded: true }
    if (c === '?') return { len: 1, repeats: false, unbounded: false }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at))
      if (!m) return undefined
      const max =
        m[2] === undefined ? Number(m[1]) : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3])
      return { len: m[0].length, repeats: max > 1, unbounded: max === Number.POSITIVE_INFINITY }
    }
    return undefined
  }
  // After an atom: consume its quantifier (and a lazy `?`), record what it means.
  const afterAtom = (atomRisky: boolean): string | undefined => {
    const q = quantifierAt(i)
    if (!q) return undefined
    i += q.len
    if (pattern[i] === '?') i++
    if (q.unbounded) unbounded++
    if (q.repeats && atomRisky) return 'a repeated group holds a quantifier or an alternation'
    const top = groups[groups.length - 1]
    if (top) top.risky = true
    return undefined
  }
  while (i < pattern.length) {
    const c = pattern[i] as string
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not supported'
      i += 2
      if (!inClass) {
        const hazard = afterAtom(false)
        if (hazard) return hazard
      }
      continue
    }
    if (inClass) {
      if (c === ']') {
        inClass = false
        i++
        const hazard = afterAtom(false)
        if (hazard) return hazard
      } else i++
      continue
    }
    if (c === '[') {
      inClass = true
      i++
      if (pattern[i] === ']') i++
      continue
    }
    if (c === '(') {
      groups.push({ risky: false })
      i++
      if (pattern[i] === '?') {
        const m = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(i))
        i += m ? m[0].length : 1
      }
      continue
    }
    if (c === ')') {
      if (groups.length < 2) return undefined // unbalanced: the RegExp constructor will say so
      const group = groups.pop() as { risky: boolean }
      i++
      const hazard = afterAtom(group.risky)
      if (hazard) return hazard
      const top = groups[groups.length - 1]
      if (top && group.risky) top.risky = true
      continue
    }
    if (c === '|') {
      const top = groups[groups.length - 1]
      if (top) top.risky = true
      i++
      continue
    }
    i++
    const hazard = afterAtom(false)
    if (hazard) return hazard
  }
  if (unbounded > ARTIFACT_READ_LIMITS.maxRegexUnboundedQuantifiers) {
    return `more than ${ARTIFACT_READ_LIMITS.maxRegexUnboundedQuantifiers} unbounded quantifiers (*, +, {n,})`
  }
  return undefined
}

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
  const hazard = regexHazard(pattern)
  if (hazard) {
    throw invalid(
      `The regex was refused because ${hazard}, which can take unbounded time. Simplify it, or search literally (regex: false).`,
    )
  }
  let re: RegExp
  try {
    re = new RegExp(pattern, options.ignoreCase ? 'i' : '')
  } catch (err) {
    throw invalid(`The regex does not compile: ${(err as Error).message}`)
  }
  const cap = ARTIFACT_READ_LIMITS.maxRegexLineLength
  return (line) => re.test(line.length > cap ? line.slice(0, cap) : line)
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
  const cap = ARTIFACT_READ_LIMITS.maxShownLineLength
  return line.length > cap ? `${line.slice(0, cap)}…` : line
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
