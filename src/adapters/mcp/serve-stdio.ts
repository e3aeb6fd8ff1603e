import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { SkillManager } from '../../manager/types.js'
import {
  createSkillMcpServer,
  type SkillMcpServerOptions,
  type SkillMcpSession,
} from './create-skill-mcp-server.js'

/** Session options shared by the transports: a manager factory instead of a manager. */
export interface McpSessionFactoryOptions
  extends Omit<SkillMcpServerOptions, 'manager' | 'disposeManager'> {
  /** Makes the manager for one session. Each session gets its own; it is disposed when the session closes. */
  createManager(): Promise<SkillManager>
}

/** Options for `serveMcpStdio`. */
export interface ServeMcpStdioOptions extends McpSessionFactoryOptions {
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/** A running stdio server. */
export interface McpStdioServer extends AsyncDisposable {
  readonly session: SkillMcpSession
  /** Resolves once the session is closed (stdin ended, the client closed, or `close()`). */
  readonly closed: Promise<void>
  /** Closes the session and disposes its manager. Idempotent. */
  close(): Promise<void>
}

/**
 * Serves one MCP session over stdio (stdout is the protocol channel: log to
 * stderr only). The session ends, and its manager is disposed, when stdin
 * ends, the transport closes or `close()` is called.
 */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<McpStdioServer> {
  const { createManager, stdin = process.stdin, stdout = process.stdout, ...rest } = options
  const manager = await createManager()
  const session = createSkillMcpServer({ ...rest, manager, disposeManager: true })
  const transport = new StdioServerTransport(stdin, stdout)
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= Promise.resolve()
      .then(() => session.close())
      .finally(() => {
        stdin.off('end', onEnd)
        resolveClosed()
      })
    return closing
  }
  const onEnd = (): void => void close()
  stdin.on('end', onEnd)
  await session.server.connect(transport)
  session.server.onclose = onEnd
  return { session, closed, close, [Symbol.asyncDispose]: close }
}
