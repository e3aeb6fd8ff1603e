import type { HelpSpec } from './help-text.js'

/**
 * What the CLI may do on a terminal besides writing text: present only when
 * stderr is a TTY, so its absence means no progress line is ever drawn.
 */
export interface CliTerminal {
  /**
   * Moves to the start of stderr's current line and erases it (`\r` and
   * erase-in-line), written raw: the one control sequence the CLI emits
   * itself. Every text goes through `CliIo.stderr`, which escapes controls.
   */
  readonly clearLine: () => void
  /** A monotonic clock in milliseconds. */
  readonly now: () => number
  /** How long discovery runs before a progress line is drawn (1,000 ms in the binary). */
  readonly progressDelayMs: number
}

/** Where a command writes; injectable so commands stay testable without a process. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /**
   * The terminal width when stdout is a TTY (`process.stdout.columns`);
   * absent when stdout is a pipe or a file. `list` fits its table to it.
   */
  readonly columns?: number
  /** Present when stderr is a TTY; see `CliTerminal`. */
  readonly terminal?: CliTerminal
}

/**
 * One `skillhost` subcommand. `run` resolves to the process exit code; help
 * (`--help` or `-h` before any `--`) is answered by the CLI from `help`,
 * before `run` is called. Its one-line summary and whether it takes `--json`
 * live in the command table (`cli/commands.ts`), which the CLI reads without
 * loading the command.
 */
export interface CliCommand {
  readonly name: string
  /** The `--help` text, drawn by `renderHelp` at the terminal's width (at most 80). */
  readonly help: HelpSpec
  run(argv: readonly string[], io: CliIo): Promise<number>
}
