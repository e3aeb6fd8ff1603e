import type { DiscoveryProgress } from '../../sources/index.js'
import type { CliIo } from './cli-command.js'
import { plural } from './plural.js'

/** How long a walk runs before the binary draws a progress line. */
export const DISCOVERY_PROGRESS_DELAY_MS = 1_000

/** `\r` and erase-in-line: back to the line's start, and clear it. */
export const CLEAR_LINE = '\r\u001b[K'

/** Least time between two redraws of the line. */
const REDRAW_MS = 100

/** One progress line on stderr over the walks of one command. */
export interface DiscoveryProgressLine {
  /**
   * A hook for one walk (`DiscoverOptions.onProgress`): each walk reports its
   * own running totals; the line shows the sum over every walk so far.
   */
  walk(): (progress: DiscoveryProgress) => void
  /** Ends the line with a summary and a newline, when one was drawn; else nothing. */
  done(): void
}

const NONE: DiscoveryProgressLine = { walk: () => () => undefined, done: () => undefined }

/**
 * Discovery progress for a CLI command, drawn on stderr only when it is a
 * terminal (`io.terminal`) and only once the walk has run longer than
 * `io.terminal.progressDelayMs`: `<label>: searching… N folders, M skills`,
 * redrawn in place (`clearLine`, then the text through the escaping
 * `io.stderr`), at most every 100 ms. A fast walk, or stderr that is a pipe
 * or a file, prints nothing.
 */
export function discoveryProgress(io: CliIo, label: string): DiscoveryProgressLine {
  const terminal = io.terminal
  if (!terminal) return NONE
  const started = terminal.now()
  const walks: DiscoveryProgress[] = []
  let shown = false
  let drawnAt = Number.NEGATIVE_INFINITY
  const totals = (): DiscoveryProgress =>
    walks.reduce((a, w) => ({ folders: a.folders + w.folders, skills: a.skills + w.skills }), {
      folders: 0,
      skills: 0,
    })
  return {
    walk() {
      const index = walks.push({ folders: 0, skills: 0 }) - 1
      return (progress) => {
        walks[index] = { folders: progress.folders, skills: progress.skills }
        const now = terminal.now()
        if (!shown && now - started < terminal.progressDelayMs) return
        if (now - drawnAt < REDRAW_MS) return
        shown = true
        drawnAt = now
        const { folders, skills } = totals()
        terminal.clearLine()
        io.stderr(`${label}: searching… ${plural(folders, 'folder')}, ${plural(skills, 'skill')}`)
      }
    },
    done() {
      if (!shown) return
      shown = false
      const { folders, skills } = totals()
      const seconds = ((terminal.now() - started) / 1000).toFixed(1)
      terminal.clearLine()
      io.stderr(
        `${label}: searched ${plural(folders, 'folder')}, found ${plural(skills, 'skill')} in ${seconds} s\n`,
      )
    },
  }
}
