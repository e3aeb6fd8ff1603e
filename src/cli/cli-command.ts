/** Where a command writes; injectable so commands stay testable without a process. */
export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
}

/** One `skillhost` subcommand. `run` resolves to the process exit code. */
export interface CliCommand {
  readonly name: string
  /** One line for the command list in `skillhost --help`. */
  readonly summary: string
  /** Full `--help` text. */
  readonly help: string
  run(argv: readonly string[], io: CliIo): Promise<number>
}
