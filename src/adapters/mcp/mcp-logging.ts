import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { type LoggingLevel, LoggingLevelSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { isModernRevision, requestedRevision } from './protocol-revision.js'
import { invalidParams } from './skill-server.js'

/** The `_meta` key of a 2026-07-28 request's log level (that revision's stand-in for `logging/setLevel`). */
export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel'

/** `logging/setLevel` with any params: the level is checked by the handler. */
const SetLevelRequest = z.object({
  method: z.literal('logging/setLevel'),
  params: z.record(z.string(), z.unknown()).optional(),
})

/** One log record a session may send as `notifications/message`. */
export interface McpLogRecord {
  readonly level: LoggingLevel
  /** Which part of skillhost speaks: `skillhost.gate`, `skillhost.script`. */
  readonly logger: string
  /** Structured and host-written only: names, codes and numbers, never a path or a skill's own text. */
  readonly data: Readonly<Record<string, unknown>>
}

/** Sends one notification on the stream of the request it belongs to. */
export type SendNotification = (notification: {
  method: 'notifications/message'
  params: { level: LoggingLevel; logger: string; data: unknown }
}) => Promise<void>

/**
 * The level a session logs at until the client sends `logging/setLevel`:
 * `info`, so script exits, refusals and failures reach a client that never
 * asked, and the per-call `debug` records do not.
 */
export const DEFAULT_MCP_LOG_LEVEL: LoggingLevel = 'info'

const SEVERITY: ReadonlyMap<LoggingLevel, number> = new Map(
  LoggingLevelSchema.options.map((level, index) => [level, index]),
)

/** One session's MCP logging: the level the client chose and the filter it implies. */
export interface McpSessionLog {
  /** The level in force: `DEFAULT_MCP_LOG_LEVEL` until the client sets one. */
  level(): LoggingLevel
  /**
   * Sends the records at or above the session's level through `send` (a
   * request handler's `extra.sendNotification`, so they travel with that
   * request's response). A record that cannot be sent is dropped: logging
   * never fails a call. For a `request` that states 2026-07-28 the level
   * is the one in its `_meta` (`LOG_LEVEL_META_KEY`), and without one (or
   * with a level not among the eight) nothing is sent: that revision says
   * the server MUST NOT log for a request that did not ask. A 2025 request
   * gets the session's level.
   */
  emit(send: SendNotification, records: readonly McpLogRecord[], request?: unknown): Promise<void>
}

/**
 * Serves `logging/setLevel` on `server` (which must declare the `logging`
 * capability) and returns the session's log. The level is this server's own
 * state, not keyed by transport session id as the SDK's built-in handler
 * keeps it: a skillhost server is one session, and a shared session restored
 * on another replica starts again from `DEFAULT_MCP_LOG_LEVEL`.
 */
export function serveMcpLogging(server: Server): McpSessionLog {
  let current: LoggingLevel = DEFAULT_MCP_LOG_LEVEL
  // Checked here rather than by the SDK's request schema, whose refusal is an
  // internal error (-32603): a level outside the spec's eight is -32602.
  server.setRequestHandler(SetLevelRequest, (request) => {
    const level = LoggingLevelSchema.safeParse(request.params?.level)
    if (!level.success)
      throw invalidParams(`Unknown log level; use one of ${LoggingLevelSchema.options.join(', ')}.`)
    current = level.data
    return {}
  })
  const atLeast = (level: LoggingLevel, floor: LoggingLevel): boolean =>
    (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(floor) ?? 0)
  return {
    level: () => current,
    emit: async (send, records, request) => {
      const floor = requestLogLevel(request) ?? current
      if (floor === 'none') return
      for (const record of records) {
        if (!atLeast(record.level, floor)) continue
        await send({
          method: 'notifications/message',
          params: { level: record.level, logger: record.logger, data: record.data },
        }).catch(() => undefined)
      }
    },
  }
}

/**
 * The level a 2026-07-28 request asked for in its `_meta`, `'none'` when
 * it states 2026-07-28 without a valid one, undefined for a 2025 request
 * (the session's level applies).
 */
function requestLogLevel(request: unknown): LoggingLevel | 'none' | undefined {
  if (!isModernRevision(requestedRevision(request))) return undefined
  const meta = (request as { params?: { _meta?: Record<string, unknown> } }).params?._meta
  const level = LoggingLevelSchema.safeParse(meta?.[LOG_LEVEL_META_KEY])
  return level.success ? level.data : 'none'
}
