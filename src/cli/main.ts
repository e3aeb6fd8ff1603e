#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import type { CliCommand, CliIo } from './cli-command.js'
import { demoCommand } from './demo.js'
import { escapeControls } from './escape-controls.js'
import { listCommand } from './list-command.js'
import { lockCommand } from './lock-command.js'
import { UsageError } from './parse-args.js'
import { promptCommand } from './prompt-command.js'
import { runCommand } from './run-command.js'
import { serveCommand } from './serve.js'
import { validateCommand } from './validate-command.js'

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

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string
  }
  return pkg.version ?? 'unknown'
}

function usage(): string {
  const width = Math.max(...[...COMMANDS.keys()].map((n) => n.length))
  const lines = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
  return `Usage: skillhost <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun skillhost <command> --help for a command's options.`
}

/** Runs the CLI on `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`)
    return name === undefined ? 2 : 0
  }
  if (name === '--version') {
    io.stdout(`${version()}\n`)
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
    if (err instanceof UsageError) {
      io.stderr(`skillhost ${name}: ${err.message}\n\n${command.help}\n`)
      return 2
    }
    io.stderr(`skillhost ${name}: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
}

// Skill-controlled text (descriptions, messages, serve's log lines) reaches a
// terminal through here: control characters are made visible. `run` prints a
// script's own output, which is its product and is written as the script wrote it.
const raw = process.argv[2] === 'run'
const io: CliIo = {
  stdout: (t) => process.stdout.write(raw ? t : escapeControls(t)),
  stderr: (t) => process.stderr.write(escapeControls(t)),
}
process.exitCode = await main(process.argv.slice(2), io)
