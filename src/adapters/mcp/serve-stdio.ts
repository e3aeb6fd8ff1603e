import { randomUUID } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { DisposableStore } from '../../common/disposable.js'
import type { SkillManager } from '../../manager/types.js'
import {
  createSkillMcpServer,
  type SkillMcpServerOptions,
  type SkillMcpSession,
} from './create-skill-mcp-server.js'

/**
 * What a manager factory learns about the session it builds for: the
 * session's id (the `mcp-session-id` over HTTP; a fresh UUID on stdio) and a
 * store the session disposes after the manager when it ends. Put there what
 * belongs to the session and must outlive the manager's own teardown (its
 * spool folder, say).
 */
export interface McpSessionScope {
  readonly sessionId: string
  readonly disposables: DisposableStore
}

/** Session options shared by the transports: a manager factory instead of a manager. */
export interface McpSessionFactoryOptions
  extends Omit<SkillMcpServerOptions, 'manager' | 'disposeManager' | 'disposables'> {
  /**
   * Makes the manager for one session. Each session gets its own; it is
   * disposed when the session closes, then `scope.disposables`.
   */
  createManager(scope: McpSessionScope): Promise<SkillManager>
}

/**
 * Runs `createManager` for a new session. If it throws, whatever it already
 * put in the scope is disposed before the error propagates.
 */
export async function openSessionManager(
  createManager: McpSessionFactoryOptions['createManager'],
  sessionId: string,
): Promise<{ manager: SkillManager; disposables: DisposableStore }> {
  const disposables = new DisposableStore()
  try {
    return { manager: await createManager({ sessionId, disposables }), disposables }
  } catch (err) {
    await disposables.dispose().catch(() => undefined)
    throw err
  }
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
  const { manager, disposables } = await openSessionManager(createManager, randomUUID())
  const session = createSkillMcpServer({ ...rest, manager, disposeManager: true, disposables })
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
