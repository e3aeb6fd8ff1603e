#!/usr/bin/env node
import { join } from 'node:path'
import { escapeControls } from '../common/index.js'
import { main } from './cli-main.js'
import { cacheHome } from './shared/cache-home.js'
import type { CliIo } from './shared/cli-command.js'
import { CLEAR_LINE, DISCOVERY_PROGRESS_DELAY_MS } from './shared/discovery-progress.js'
import { unsupportedRuntimeLine } from './shared/runtime-support.js'

/** The first arguments that run no command, so ask no python: the tiers stay unloaded for them. */
const ASKS_NO_PYTHON: ReadonlySet<string> = new Set(['', '--version', '-v', '--help', '-h', 'help'])

/** The status of a command whose output pipe closed: 128 + SIGPIPE, as a shell reports it. */
const EXIT_BROKEN_PIPE = 141

// The process entry: only wiring. Commands live in cli-main.ts, which tests
// import without running the CLI.

// Skill-controlled text (descriptions, messages, serve's log lines) reaches a
// terminal through here: control characters are made visible. `run` prints a
// script's own output, which is its product and is written as the script wrote it.
const raw = process.argv[2] === 'run'
const io: CliIo = {
  stdout: (t) => process.stdout.write(raw ? t : escapeControls(t)),
  stderr: (t) => process.stderr.write(escapeControls(t)),
  ...(process.stdout.isTTY && process.stdout.columns > 0 && { columns: process.stdout.columns }),
  ...(process.stderr.isTTY && {
    terminal: {
      clearLine: () => process.stderr.write(CLEAR_LINE),
      now: () => performance.now(),
      progressDelayMs: DISCOVERY_PROGRESS_DELAY_MS,
    },
  }),
}
// A reader that stops early (`skillhost list | head`) closes the pipe: end at
// once and quietly, as `ls | head` does, with the status a shell shows for a
// tool SIGPIPE killed (128 + 13), not an unhandled EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    process.exit(EXIT_BROKEN_PIPE)
  })
}
// One line on an unsupported Node.js; the command still runs.
const unsupported = unsupportedRuntimeLine(process.version)
if (unsupported !== undefined) process.stderr.write(unsupported)
// A command remembers what a python says of itself across runs, keyed by the
// interpreter's path and mtime (issue 40.12); --version and help ask no python.
if (!ASKS_NO_PYTHON.has(process.argv[2] ?? '')) {
  const { rememberHostLinks, rememberPythonProbes } = await import('../tiers/scripts/internal.js')
  rememberPythonProbes(join(cacheHome(), 'python-probes'))
  // The system folders' walk too, when running as root (host-link-cache.ts says why only then).
  rememberHostLinks(join(cacheHome(), 'host-links'))
}
process.exitCode = await main(process.argv.slice(2), io)
