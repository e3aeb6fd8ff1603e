import { cutStartToWidth, cutToWidth, padToWidth, textWidth } from '../shared/text-width.js'

/**
 * A path cut to at most `width` columns where it reads best: whole folder
 * names left out from its middle (`examples/…/form-fill`), as many of its
 * leading ones kept as fit; then `…/` and the last name alone; then `…`
 * and as much of the last name's end as fits. Never a name cut
 * in two while a whole one fits: the folder's name says which skill, its
 * start where it lies.
 */
export function cutPathToWidth(path: string, width: number): string {
  if (textWidth(path) <= width) return path
  const parts = path.split('/')
  const last = parts.pop() ?? ''
  for (let kept = parts.length - 1; kept >= 1; kept--) {
    const candidate = `${parts.slice(0, kept).join('/')}/…/${last}`
    if (textWidth(candidate) <= width) return candidate
  }
  const tail = `…/${last}`
  if (textWidth(tail) <= width) return tail
  // Marked as cut even when the name alone would fit: it is not the whole path.
  if (width <= 0) return ''
  if (textWidth(last) < width) return `…${last}`
  // One column more than the width, so the name is cut whatever its own width.
  return cutStartToWidth(` ${last}`, width)
}

/** A description is cut to this before the PATH column gives up any room. */
const MIN_DESCRIPTION_WIDTH = 30
/** The least a description is cut to, however narrow the terminal. */
const LEAST_DESCRIPTION_WIDTH = 12
/** The least a path is cut to (`cutPathToWidth`: the skill folder's name stays). */
const MIN_PATH_WIDTH = 16
const GAP = 2

/** `list`'s table drawn to a width, and whether its PATH column was left out to fit. */
export interface ListTable {
  readonly lines: readonly string[]
  readonly pathDropped: boolean
}

/**
 * The table in display widths (`textWidth`; cells are already escaped), one
 * line per row, fitted to `columns`. The last column is the description and
 * `pathColumn` the path; when the rows are too wide, in order: the
 * description is cut (with `…`) down to 30 columns; the path is cut in its
 * middle down to 16 (`cutPathToWidth`); the path column is left out (its room going to the
 * description); the description is cut down to 12 at most. A terminal narrower than
 * that gets longer lines.
 */
export function listTable(
  rows: readonly string[][],
  columns: number,
  pathColumn: number,
): ListTable {
  const last = rows[0]!.length - 1
  const natural = rows[0]!.map((_, col) => Math.max(...rows.map((r) => textWidth(r[col]!))))
  const widths = [...natural]
  const shown = new Set(widths.keys())
  const over = (): number =>
    [...shown].reduce((a, col) => a + widths[col]!, 0) + GAP * (shown.size - 1) - columns
  const shrink = (col: number, least: number): void => {
    widths[col] = Math.min(widths[col]!, Math.max(least, widths[col]! - Math.max(0, over())))
  }
  shrink(last, MIN_DESCRIPTION_WIDTH)
  shrink(pathColumn, MIN_PATH_WIDTH)
  if (over() > 0) {
    shown.delete(pathColumn)
    // The room the path had goes to the description, which may still be cut to the least.
    widths[last] = Math.min(
      natural[last]!,
      Math.max(LEAST_DESCRIPTION_WIDTH, widths[last]! - over()),
    )
  }
  const fitCell = (cell: string, col: number): string => {
    if (col === last) return cutToWidth(cell, widths[col]!)
    const cut = col === pathColumn ? cutPathToWidth(cell, widths[col]!) : cell
    return padToWidth(cut, widths[col]!)
  }
  const lines = rows.map((r) =>
    r
      .flatMap((cell, col) => (shown.has(col) ? [fitCell(cell, col)] : []))
      .join(' '.repeat(GAP))
      .trimEnd(),
  )
  return { lines, pathDropped: !shown.has(pathColumn) }
}
