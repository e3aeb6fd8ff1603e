import { escapeLine } from '../../common/index.js'
import type { CliIo } from '../shared/cli-command.js'
import { UsageError } from '../shared/parse-args.js'

/** `--log-format`: `text` (the default), one `skillhost serve: …` line per event; `json`, one object per line. */
export type ServeLogFormat = 'text' | 'json'

/** How grave an event is; a JSON line's `level`. */
export type ServeLogLevel = 'info' | 'warning' | 'error'

/** What an event says beside its message; each field only when there is one. */
export interface ServeLogFields {
  /** Default `info`. */
  readonly level?: ServeLogLevel
  /** The MCP session the event belongs to. */
  readonly session?: string
  /** The skillhost error code of a failure (docs/errors.md). */
  readonly code?: string
}

/** The one way `serve` logs an event: every log site calls it. */
export type ServeLog = (message: string, fields?: ServeLogFields) => void

/** `--log-format`'s value, checked; `text` when not given. */
export function parseLogFormat(value: string | undefined): ServeLogFormat {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text'
  throw new UsageError('--log-format must be text or json')
}

/**
 * One event as its stderr line. The message is escaped as every log line is
 * (`escapeLine`: controls, line breaks and bidi overrides shown as `\uXXXX`,
 * so a name a skill chose can neither forge a line nor reach the terminal
 * raw); `json` then encodes it, with `time` (ISO 8601), `level`, `session`
 * and `code` when there are, and `message`.
 */
export function serveLogLine(
  format: ServeLogFormat,
  message: string,
  fields: ServeLogFields = {},
  now: Date = new Date(),
): string {
  const text = escapeLine(message)
  if (format === 'text') return `skillhost serve: ${text}\n`
  const event = {
    time: now.toISOString(),
    level: fields.level ?? 'info',
    ...(fields.session !== undefined && { session: escapeLine(fields.session.slice(0, 128)) }),
    ...(fields.code !== undefined && { code: escapeLine(fields.code.slice(0, 64)) }),
    message: text,
  }
  return `${JSON.stringify(event)}\n`
}

/** The log of one `serve` run, writing to `io.stderr` in `format`. */
export function createServeLog(io: CliIo, format: ServeLogFormat): ServeLog {
  return (message, fields) => io.stderr(serveLogLine(format, message, fields))
}

const PREFIX = 'skillhost serve: '

/**
 * `io` with its stderr turned into log events: the lines `serve`'s shared
 * helpers write on their own (a root that cannot be searched) become
 * warnings of `log`, so with `--log-format json` every stderr line is JSON.
 * Text format keeps `io` as it is.
 */
export function logIo(io: CliIo, format: ServeLogFormat, log: ServeLog): CliIo {
  if (format === 'text') return io
  const stderr = (text: string): void => {
    for (const line of text.split('\n')) {
      if (line === '') continue
      log(line.startsWith(PREFIX) ? line.slice(PREFIX.length) : line, { level: 'warning' })
    }
  }
  // No terminal: a progress line redrawn in place is no event.
  const { terminal: _t, ...rest } = io
  return { ...rest, stderr }
}
