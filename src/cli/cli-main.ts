import { COMMANDS } from './commands.js'
import type { CliIo } from './shared/cli-command.js'
import { type HelpSpec, helpWidth, renderHelp } from './shared/help-text.js'
import { packageVersion } from './shared/package-version.js'
import { reportError, wantsJson } from './shared/report-error.js'

/** The command table (`commands.ts`), re-exported for the CLI's tests. */
export { COMMANDS }

/** `skillhost --help`: the forms of the command line and the command table. */
function usage(): HelpSpec {
  return {
    usage: [
      'skillhost <command> [options]',
      'skillhost help [command] | --help | -h',
      'skillhost --version | -v',
    ],
    blocks: [
      {
        title: 'Commands:',
        items: [...COMMANDS.values()].map((c) => ({ term: c.name, text: c.summary })),
      },
      "Flags go before or after a command's other arguments. Run skillhost help <command> (or skillhost <command> --help) for a command's options.",
    ],
  }
}

/** A usage error: one line and where to read more, on stderr; exit 2. */
function usageError(io: CliIo, prefix: string, message: string, helpCommand: string): number {
  io.stderr(`${prefix}: ${message}\nTry '${helpCommand} --help'.\n`)
  return 2
}

/** True when help is asked for: `--help` or `-h` before any `--` (what follows is a script's). */
function asksHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')
}

/**
 * Runs the CLI on `argv` (without node and script) and resolves to the exit
 * code. Help asked for (`--help`, `-h`, `help`, `help <command>`,
 * `<command> --help`) goes to stdout with 0, drawn at the terminal's width
 * (at most 80 columns); a usage error (no command, an unknown one, a bad
 * option) is one line and a hint on stderr with 2; `--version`/`-v` prints
 * the version.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const width = helpWidth(io.columns)
  const [name, ...rest] = argv
  if (name === undefined) return usageError(io, 'skillhost', 'no command given', 'skillhost')
  if (name === '--help' || name === '-h') {
    io.stdout(`${renderHelp(usage(), width)}\n`)
    return 0
  }
  if (name === 'help') {
    if (rest.length === 0) {
      io.stdout(`${renderHelp(usage(), width)}\n`)
      return 0
    }
    const [topic, ...extra] = rest
    const command = COMMANDS.get(topic ?? '')
    if (!command || extra.length > 0) {
      const why = command ? 'help takes one command' : `no command "${topic}"`
      return usageError(io, 'skillhost help', why, 'skillhost')
    }
    io.stdout(`${renderHelp((await command.load()).help, width)}\n`)
    return 0
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${packageVersion()}\n`)
    return 0
  }
  const entry = COMMANDS.get(name)
  if (!entry) return usageError(io, 'skillhost', `unknown command "${name}"`, 'skillhost')
  const command = await entry.load()
  if (asksHelp(rest)) {
    io.stdout(`${renderHelp(command.help, width)}\n`)
    return 0
  }
  try {
    return await command.run(rest, io)
  } catch (err) {
    return reportError(err, {
      io,
      command: name,
      json: entry.json === true && wantsJson(rest),
      usage: `Try 'skillhost ${name} --help'.`,
    })
  }
}
