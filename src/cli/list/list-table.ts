import { cutStartToWidth, cutToWidth, padToWidth, textWidth } from '../shared/text-width.js'

/** A description is cut to this before the PATH column gives up any room. */
const MIN_DESCRIPTION_WIDTH = 30
/** The least a description is cut to, however narrow the terminal. */
const LEAST_DESCRIPTION_WIDTH = 12
/** The least a path is cut to (from its start: the skill folder's name stays). */
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
 * description is cut (with `…`) down to 30 columns; the path is cut from its
 * start down to 16; the path column is left out (its room going to the
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
    const cut = col === pathColumn ? cutStartToWidth(cell, widths[col]!) : cell
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
