import { textWidth } from './text-width.js'
import { wrapText } from './wrap-text.js'

/** One row of a list in a help text: a flag (or an exit status) and what it does. */
export interface HelpItem {
  readonly term: string
  readonly text: string
}

/** A list of items with aligned descriptions, under an optional title ("Options:"). */
export interface HelpList {
  readonly title?: string
  readonly items: readonly HelpItem[]
}

/** A block of a help text: a paragraph (reflowed to the width), or a list. */
export type HelpBlock = string | HelpList

/** A command's help: its usage forms and the blocks after them, in order. */
export interface HelpSpec {
  /** Each usage form without "Usage: ", e.g. `skillhost list [options] [root...]`. */
  readonly usage: readonly string[]
  readonly blocks: readonly HelpBlock[]
}

/** The widest a help text is drawn, whatever the terminal: longer lines are hard to read. */
export const HELP_WIDTH = 80

/** Below this a help text is drawn at this width anyway: narrower only breaks it up. */
const MIN_HELP_WIDTH = 40

/** A term wider than this gets a line of its own, so the description column stays left. */
const MAX_TERM_WIDTH = 22

/**
 * The width help is drawn at: the terminal's columns when stdout is a
 * terminal narrower than `HELP_WIDTH`, else `HELP_WIDTH` (a pipe or a file
 * gets 80 columns too).
 */
export function helpWidth(columns?: number): number {
  if (columns === undefined || columns <= 0) return HELP_WIDTH
  return Math.max(MIN_HELP_WIDTH, Math.min(columns, HELP_WIDTH))
}

/** A usage form's words, a bracketed group (`[--root DIR]`) being one word. */
function usageWords(form: string): string[] {
  const words: string[] = []
  let depth = 0
  let word = ''
  for (const ch of form) {
    if (ch === '[' || ch === '<') depth++
    if (ch === ']' || ch === '>') depth--
    if (ch === ' ' && depth === 0) {
      if (word !== '') words.push(word)
      word = ''
    } else word += ch
  }
  if (word !== '') words.push(word)
  return words
}

/** One usage form, wrapped with its continuation lines under its first argument. */
function usageLines(form: string, index: number, width: number): string[] {
  const lead = index === 0 ? 'Usage: ' : '       '
  const words = usageWords(form)
  const head = words.slice(0, 2).join(' ')
  const hang = ' '.repeat(textWidth(lead) + textWidth(head) + 1)
  const lines: string[] = []
  let line = `${lead}${head}`
  for (const word of words.slice(2)) {
    if (textWidth(line) + 1 + textWidth(word) <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = `${hang}${word}`
    }
  }
  lines.push(line)
  return lines
}

/**
 * A list: terms indented two columns, descriptions starting in one column
 * (two past the widest term that is not too wide) and wrapped under it; a
 * wider term stands on its own line with its description below.
 */
function listLines(list: HelpList, width: number): string[] {
  const fitting = list.items.map((i) => textWidth(i.term)).filter((w) => w <= MAX_TERM_WIDTH)
  const column = 2 + Math.max(0, ...fitting) + 2
  const indent = ' '.repeat(column)
  const lines = list.title === undefined ? [] : wrapText(list.title, width)
  for (const { term, text } of list.items) {
    const termWidth = textWidth(term)
    if (termWidth <= MAX_TERM_WIDTH) {
      const first = `  ${term}${' '.repeat(column - 2 - termWidth)}`
      lines.push(...wrapText(text, width, first, indent))
    } else lines.push(`  ${term}`, ...wrapText(text, width, indent, indent))
  }
  return lines
}

/**
 * A help text drawn at `width` columns: the usage forms (wrapped between
 * their bracketed groups), then each block after a blank line, paragraphs
 * reflowed at word boundaries and lists with aligned descriptions. Every
 * line fits `width` unless a single word is wider.
 */
export function renderHelp(spec: HelpSpec, width: number = HELP_WIDTH): string {
  const lines = spec.usage.flatMap((form, i) => usageLines(form, i, width))
  for (const block of spec.blocks) {
    lines.push('')
    lines.push(...(typeof block === 'string' ? wrapText(block, width) : listLines(block, width)))
  }
  return lines.join('\n')
}
