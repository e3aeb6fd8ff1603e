import { textWidth } from './text-width.js'

/**
 * `text` wrapped at word boundaries to lines of at most `width` terminal
 * columns (`textWidth`: wide characters count 2): the first line starts with
 * `first`, every later one with `rest` (a hanging indent). Runs of spaces
 * become one. A word wider than the room is kept whole on a line of its own:
 * a path or a URL is never cut in two.
 */
export function wrapText(text: string, width: number, first = '', rest = first): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '')
  const lines: string[] = []
  let line = first
  let empty = true
  for (const word of words) {
    const candidate = empty ? `${line}${word}` : `${line} ${word}`
    if (empty || textWidth(candidate) <= width) {
      line = candidate
      empty = false
      continue
    }
    lines.push(line)
    line = `${rest}${word}`
  }
  lines.push(empty ? line.trimEnd() : line)
  return lines
}
