import { personText, SkillHostError, type SkillHostErrorCode } from '../../common/index.js'
import type { CliIo } from './cli-command.js'
import { UsageError } from './parse-args.js'

/** How `reportError` reports one command's failure. */
export interface ReportErrorOptions {
  readonly io: CliIo
  /** The command's name, as in `skillhost <command>: …`. */
  readonly command: string
  /** `--json` was given: the error goes to stdout as `{"error":{"code","message"}}`. */
  readonly json?: boolean
  /** Printed on the line after a usage error's in text mode: where to read more. */
  readonly usage?: string
  /** The exit status, when the command has its own (run's sysexits); default 2 for usage, else 1. */
  readonly status?: number
}

/** The status every command but `run` exits with for a usage error (`E_CLI_USAGE`). */
export const USAGE_STATUS = 2
/** The status every command but `run` exits with for any other failure. */
export const FAILURE_STATUS = 1

/**
 * The code the CLI reports for `err`: a skillhost error's own, `E_CLI_USAGE`
 * for a command-line mistake, `E_CLI_FAILED` for anything else.
 */
export function cliErrorCode(err: unknown): SkillHostErrorCode {
  if (err instanceof UsageError) return 'E_CLI_USAGE'
  return SkillHostError.isInstance(err) ? err.code : 'E_CLI_FAILED'
}

/**
 * The one place a CLI command reports an error, in the person's voice
 * (`personText`: host paths and flags a person can act on, never the model's
 * "call read_skill_file"), and resolves to the exit status. Text mode writes
 * `skillhost <command>: [CODE: ]text` on stderr (the code of a skillhost error
 * names its section of docs/errors.md); `json` writes
 * `{"error":{"code","message"}}` on stdout instead, where a program reading
 * the command's JSON output looks for it, and nothing on stderr.
 */
export function reportError(err: unknown, options: ReportErrorOptions): number {
  const code = cliErrorCode(err)
  const message = personText(err)
  const status = options.status ?? (code === 'E_CLI_USAGE' ? USAGE_STATUS : FAILURE_STATUS)
  if (options.json) {
    options.io.stdout(`${JSON.stringify({ error: { code, message } })}\n`)
    return status
  }
  const shown = code === 'E_CLI_USAGE' || code === 'E_CLI_FAILED' ? message : `${code}: ${message}`
  const usage = code === 'E_CLI_USAGE' && options.usage ? `\n${options.usage}` : ''
  options.io.stderr(`skillhost ${options.command}: ${shown}${usage}\n`)
  return status
}

/**
 * Whether a command line asks for JSON: `--json` among the command's own
 * arguments (before a `--`, after which arguments belong to a script).
 */
export function wantsJson(argv: readonly string[]): boolean {
  const dash = argv.indexOf('--')
  return (dash === -1 ? argv : argv.slice(0, dash)).includes('--json')
}
