import { shortTitle } from './artifact-text.js'

/** One heading of a markdown outline. Line numbers are 1-based. */
export interface OutlineEntry {
  /** Position in the outline, 1-based: what `artifact_md_section` takes as `index`. */
  readonly index: number
  readonly level: number
  readonly title: string
  /** The heading's line. */
  readonly line: number
  /** The last line of the section, subsections included. */
  readonly endLine: number
  /** Titles from the top-level ancestor down to this heading. */
  readonly path: readonly string[]
}

/** Longest heading title an outline or section header shows; longer ones are cut with an ellipsis. */
export const MAX_SHOWN_TITLE = 200

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/

const isBlank = (c: string | undefined) => c === ' ' || c === '\t'

/**
 * An ATX heading (`## Title ##`) as level and title, or undefined. Written as
 * index scans, not a regex: a lazy group followed by optional trailing runs
 * backtracks quadratically on a heading padded with blanks, and bodies are
 * skill-controlled. Each character is looked at a bounded number of times.
 */
function parseAtxHeading(line: string): { level: number; title: string } | undefined {
  let i = 0
  while (i < 3 && line[i] === ' ') i++
  let level = 0
  while (line[i + level] === '#') level++
  if (level < 1 || level > 6) return undefined
  let start = i + level
  if (start < line.length && !isBlank(line[start])) return undefined
  let end = line.length
  while (end > start && isBlank(line[end - 1])) end--
  // An optional closing run of `#`, preceded by a blank or standing alone.
  let hashes = end
  while (hashes > start && line[hashes - 1] === '#') hashes--
  if (hashes < end && (hashes === start || isBlank(line[hashes - 1]))) {
    end = hashes
    while (end > start && isBlank(line[end - 1])) end--
  }
  while (start < end && isBlank(line[start])) start++
  return { level, title: line.slice(start, end) }
}

/**
 * The heading tree of markdown `lines`: ATX (`## Title`) and setext
 * (underlined) headings, ignoring fenced code blocks and a leading YAML
 * frontmatter block. Pure and linear in the input.
 */
export function parseMarkdownOutline(lines: readonly string[]): OutlineEntry[] {
  const found: { level: number; title: string; line: number }[] = []
  let i = 0
  if (lines[0] === '---') {
    const close = lines.findIndex((l, at) => at > 0 && (l === '---' || l === '...'))
    if (close > 0) i = close + 1
  }
  let fence: string | undefined
  for (; i < lines.length; i++) {
    const line = lines[i] as string
    const f = FENCE.exec(line)
    if (fence !== undefined) {
      if (
        f &&
        (f[1] as string)[0] === fence[0] &&
        (f[1] as string).length >= fence.length &&
        line.trim() === f[1]
      ) {
        fence = undefined
      }
      continue
    }
    if (f) {
      fence = f[1]
      continue
    }
    const atx = parseAtxHeading(line)
    if (atx) {
      found.push({ level: atx.level, title: atx.title.trim(), line: i + 1 })
      continue
    }
    const next = lines[i + 1]
    const prev = line.trim()
    if (next !== undefined && prev !== '' && !/^ {0,3}(?:[-*+>]|\d+[.)])\s/.test(line)) {
      const s = SETEXT.exec(next)
      if (s) {
        found.push({ level: (s[1] as string)[0] === '=' ? 1 : 2, title: prev, line: i + 1 })
        i++
      }
    }
  }
  // One pass with a stack: a heading closes every open section of its level or deeper.
  const ends = new Array<number>(found.length).fill(lines.length)
  const paths: string[][] = []
  const open: number[] = []
  found.forEach((h, at) => {
    while (
      open.length > 0 &&
      (found[open[open.length - 1] as number] as { level: number }).level >= h.level
    ) {
      ends[open.pop() as number] = h.line - 1
    }
    open.push(at)
    paths.push(open.map((k) => (found[k] as { title: string }).title))
  })
  return found.map((h, at) =>
    Object.freeze({
      index: at + 1,
      level: h.level,
      title: h.title,
      line: h.line,
      endLine: ends[at] as number,
      path: Object.freeze(paths[at] as string[]),
    }),
  )
}

/** The outline as indented text, one heading a line: `3. ## Install (lines 12-40)`. Capped at `max` entries. */
export function formatOutline(outline: readonly OutlineEntry[], max: number): string {
  const shown = outline.slice(0, max).map((h) => {
    const title = shortTitle(h.title, MAX_SHOWN_TITLE)
    return `${'  '.repeat(h.level - 1)}${h.index}. ${'#'.repeat(h.level)} ${title} (lines ${h.line}-${h.endLine})`
  })
  if (outline.length > max) shown.push(`[${outline.length - max} more headings not listed]`)
  return shown.join('\n')
}
