import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { type LoggingLevel, LoggingLevelSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { invalidParams } from './skill-server.js'

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
   * never fails a call.
   */
  emit(send: SendNotification, records: readonly McpLogRecord[]): Promise<void>
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
  const wanted = (level: LoggingLevel): boolean =>
    (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(current) ?? 0)
  return {
    level: () => current,
    emit: async (send, records) => {
      for (const record of records) {
        if (!wanted(record.level)) continue
        await send({
          method: 'notifications/message',
          params: { level: record.level, logger: record.logger, data: record.data },
        }).catch(() => undefined)
      }
    },
  }
}
