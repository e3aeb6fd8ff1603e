import { main } from '../../src/cli/cli-main.js'
import type { CliIo } from '../../src/cli/shared/cli-command.js'

/** What one in-process `skillhost` invocation printed and returned. */
export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI's `main` in this process with captured output (and, if given, a terminal width). */
export async function runCli(argv: string[], columns?: number): Promise<CliRun> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    ...(columns !== undefined && { columns }),
  }
  const code = await main(argv, io)
  return { code, stdout: out.join(''), stderr: err.join('') }
}
