/**
 * Claude Code's dynamic context: a SKILL.md body may hold shell commands whose
 * output replaces them when the skill is loaded. Two forms are recognized:
 *
 * - inline, `` !`command` ``: a `!` at the start of a line or after
 *   whitespace, then a one-backtick code span on the same line;
 * - a fenced block whose info string is exactly `!` (```` ```! ````), its
 *   lines being the command.
 *
 * Inside another fenced block, only a line that is nothing but
 * `` !`command` `` is one (a skill fences it so the output shows formatted),
 * and never in a markdown fence (```` ```markdown ````, `md`, `mdx`), which
 * shows an example SKILL.md. Another code span (``` `` !`x` `` ```) is never
 * a command. So a skill that teaches the syntax runs nothing. (Measured on
 * the public mirrors: 136 skills hold the syntax; 51 lines of it sit in
 * markdown fences, all examples; the 6 in a json fence and 2 in a text fence
 * stand alone and are meant to run; 3 in a yaml fence are mid-line examples.) This file is the one home of that rule: the manager splits a
 * body with it before any placeholder is filled, so text a load's arguments
 * bring in can never become a command.
 */

/** Most commands one body may run; the rest are left as markers. */
export const MAX_DYNAMIC_COMMANDS = 16

/** Longest command, in UTF-16 code units; a longer one is left as a marker. */
export const MAX_DYNAMIC_COMMAND_LENGTH = 4_096

/** A piece of a split body: text to keep, or a command whose output replaces it. */
export type BodySegment =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'command'
      /** The command line as written (inline) or the block's lines (fenced). */
      readonly command: string
      /** What the body held, so a caller can keep it as written. */
      readonly source: string
      readonly form: 'inline' | 'block'
    }

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

/** The fence a line opens, if any: its character run and info string. */
function openingFence(line: string): { run: string; info: string } | undefined {
  const m = FENCE.exec(line)
  if (!m) return undefined
  const run = m[1] as string
  const info = (m[2] as string).trim()
  // A backtick fence's info string may not hold a backtick (CommonMark).
  if (run[0] === '`' && info.includes('`')) return undefined
  return { run, info }
}

function closes(line: string, run: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
  const close = m?.[1]
  return close !== undefined && close[0] === run[0] && close.length >= run.length
}

/**
 * The inline commands of one line outside fences. Code spans are matched as
 * CommonMark does (a run of N backticks closes at the next run of exactly N);
 * a one-backtick span directly after a `!` that starts the line or follows
 * whitespace is a command, every other span is skipped whole.
 */
function splitLine(line: string, push: (segment: BodySegment) => void): void {
  let text = ''
  let i = 0
  while (i < line.length) {
    if (line[i] !== '`') {
      text += line[i]
      i++
      continue
    }
    let n = 0
    while (line[i + n] === '`') n++
    const run = '`'.repeat(n)
    let close = -1
    for (let j = line.indexOf(run, i + n); j !== -1; j = line.indexOf(run, j + 1)) {
      const before = line[j - 1]
      const after = line[j + n]
      if (before !== '`' && after !== '`') {
        close = j
        break
      }
      // Skip the whole longer run.
      while (line[j + 1] === '`') j++
    }
    if (close === -1) {
      text += run
      i += n
      continue
    }
    const span = line.slice(i, close + n)
    const bang = text.endsWith('!') && (text.length === 1 || /\s/.test(text[text.length - 2] ?? ''))
    const command = line.slice(i + n, close)
    // Like Claude Code's rule, a command holds no backtick (a span may hold longer runs).
    if (n === 1 && bang && command.trim() !== '' && !command.includes('`')) {
      text = text.slice(0, -1)
      if (text) push({ kind: 'text', text })
      text = ''
      push({ kind: 'command', command, source: `!${span}`, form: 'inline' })
    } else text += span
    i = close + n
  }
  if (text) push({ kind: 'text', text })
}

/** Fences that show markdown: a command in them is an example, never run. */
const DOCUMENTATION = /^(markdown|md|mdx)(\s|$)/i

const WHOLE_LINE = /^([ \t]*)!`([^`\r\n]+)`([ \t]*\r?\n?)$/

/**
 * A line inside another fence (```` ```json ````, ```` ```text ````) is a
 * command only when it is nothing but one: skills put `` !`cmd --json` ``
 * alone in a fence so its output shows formatted, while a command in the
 * middle of a line there is part of an example.
 */
function splitWholeLine(line: string, push: (segment: BodySegment) => void): void {
  const m = WHOLE_LINE.exec(line)
  if (!m || (m[2] as string).trim() === '') {
    push({ kind: 'text', text: line })
    return
  }
  if (m[1]) push({ kind: 'text', text: m[1] })
  push({ kind: 'command', command: m[2] as string, source: `!\`${m[2]}\``, form: 'inline' })
  if (m[3]) push({ kind: 'text', text: m[3] })
}

/**
 * Splits a body into text and dynamic-context commands (see the file's
 * comment for the rule). Joining every segment's `text` or `source` gives the
 * body back exactly. Never throws; a body without commands is one text
 * segment (or none, when empty).
 */
export function splitDynamicContext(body: string): BodySegment[] {
  const out: BodySegment[] = []
  const push = (segment: BodySegment): void => {
    const last = out[out.length - 1]
    if (segment.kind === 'text' && last?.kind === 'text') {
      out[out.length - 1] = { kind: 'text', text: last.text + segment.text }
    } else out.push(segment)
  }
  const lines = body.split(/(?<=\n)/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const bare = line.replace(/\r?\n$/, '')
    const fence = openingFence(bare)
    if (fence === undefined) {
      splitLine(bare, push)
      if (bare !== line) push({ kind: 'text', text: line.slice(bare.length) })
      continue
    }
    let end = i + 1
    while (end < lines.length && !closes((lines[end] as string).replace(/\r?\n$/, ''), fence.run))
      end++
    const block = lines.slice(i, end + 1).join('')
    const command = lines
      .slice(i + 1, end)
      .join('')
      .replace(/\r?\n$/, '')
      .replace(/\r\n/g, '\n')
    if (fence.info === '!' && end < lines.length && command.trim() !== '') {
      const closing = lines[end] as string
      const trailing = closing.slice(closing.replace(/\r?\n$/, '').length)
      push({
        kind: 'command',
        command,
        source: block.slice(0, block.length - trailing.length),
        form: 'block',
      })
      if (trailing) push({ kind: 'text', text: trailing })
    } else if (DOCUMENTATION.test(fence.info)) push({ kind: 'text', text: block })
    else for (const inner of lines.slice(i, end + 1)) splitWholeLine(inner, push)
    i = end
  }
  return out
}
