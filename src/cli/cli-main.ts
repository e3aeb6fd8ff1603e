import { demoCommand } from './demo/demo-command.js'
import { listCommand } from './list/list-command.js'
import { lockCommand } from './lock/lock-command.js'
import { promptCommand } from './prompt/prompt-command.js'
import { runCommand } from './run/run-command.js'
import { serveCommand } from './serve/serve-command.js'
import type { CliCommand, CliIo } from './shared/cli-command.js'
import { packageVersion } from './shared/package-version.js'
import { reportError, wantsJson } from './shared/report-error.js'
import { validateCommand } from './validate/validate-command.js'

/**
 * The command table. `run` (one script under the sandbox) and `serve` (MCP
 * over stdio) are added here as one entry each, in their own files.
 */
export const COMMANDS: ReadonlyMap<string, CliCommand> = new Map(
  [
    validateCommand,
    listCommand,
    promptCommand,
    lockCommand,
    runCommand,
    serveCommand,
    demoCommand,
  ].map((c) => [c.name, c]),
)

function usage(): string {
  const width = Math.max(...[...COMMANDS.keys()].map((n) => n.length))
  const lines = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
  return `Usage: skillhost <command> [options]
       skillhost help [command] | --help | -h
       skillhost --version | -v

Commands:
${lines.join('\n')}

Flags go before or after a command's other arguments. Run skillhost help
<command> (or skillhost <command> --help) for a command's options.`
}

/**
 * Runs the CLI on `argv` (without node and script) and resolves to the exit
 * code. Help asked for (`--help`, `-h`, `help`, `help <command>`,
 * `<command> --help`) goes to stdout with 0; a usage error (no command, an
 * unknown one, a bad option) goes to stderr with 2; `--version`/`-v` prints
 * the version.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined) {
    io.stderr(`skillhost: no command given\n\n${usage()}\n`)
    return 2
  }
  if (name === '--help' || name === '-h') {
    io.stdout(`${usage()}\n`)
    return 0
  }
  if (name === 'help') {
    if (rest.length === 0) {
      io.stdout(`${usage()}\n`)
      return 0
    }
    const [topic, ...extra] = rest
    const command = COMMANDS.get(topic ?? '')
    if (!command || extra.length > 0) {
      const why = command ? 'help takes one command' : `no command "${topic}"`
      io.stderr(`skillhost help: ${why}\n\n${usage()}\n`)
      return 2
    }
    io.stdout(`${command.help}\n`)
    return 0
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${packageVersion()}\n`)
    return 0
  }
  const command = COMMANDS.get(name)
  if (!command) {
    io.stderr(`skillhost: unknown command "${name}"\n\n${usage()}\n`)
    return 2
  }
  try {
    return await command.run(rest, io)
  } catch (err) {
    return reportError(err, {
      io,
      command: name,
      json: command.json === true && wantsJson(rest),
      usage: command.help,
    })
  }
}
