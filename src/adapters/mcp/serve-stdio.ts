import { randomUUID } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { DisposableStore } from '../../common/index.js'
import type { SkillManager } from '../../manager/index.js'
import {
  createSkillMcpServer,
  type SkillMcpServerOptions,
  type SkillMcpSession,
  skillMcpServerIdentity,
} from './create-skill-mcp-server.js'
import { HeldTransport } from './held-transport.js'

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
  /**
   * The session, once its manager is made. The client is answered before
   * that: `initialize` at once, everything else as soon as the manager is
   * ready. Rejects when the manager cannot be made (the server then closes).
   */
  readonly ready: Promise<SkillMcpSession>
  /** Resolves once the session is closed (stdin ended, the client closed, or `close()`). */
  readonly closed: Promise<void>
  /** Closes the session and disposes its manager. Idempotent. */
  close(): Promise<void>
}

/**
 * The longest a stdio session whose stdin ended waits for the answers it
 * still owes before it closes: a client that closes stdin after its last
 * request gets every answer, and a call that never ends cannot keep the
 * process alive (the client's next step is SIGTERM anyway).
 */
const STDIO_DRAIN_MS = 30_000

/**
 * Serves one MCP session over stdio (stdout is the protocol channel: log to
 * stderr only). The client's `initialize` is answered at once, while the
 * session's manager is still being made (a first discovery over a large
 * corpus can outlast a client's initialize timeout); its other requests are
 * answered, in order, once the manager is ready. When stdin ends the session
 * first answers every request it received (waiting for the manager if it
 * must, at most `STDIO_DRAIN_MS` for the answers), then closes and disposes
 * its manager; it closes at once when the transport closes or `close()` is
 * called.
 */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<McpStdioServer> {
  const { createManager, stdin = process.stdin, stdout = process.stdout, ...rest } = options
  const transport = new HeldTransport(
    new StdioServerTransport(stdin, stdout),
    skillMcpServerIdentity(rest),
  )
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  let settle: () => void = () => undefined
  const settled = new Promise<void>((resolve) => {
    settle = resolve
  })
  let session: SkillMcpSession | undefined
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= Promise.resolve()
      // Without a session yet, closing the transport is all there is; the
      // manager, if it is still being made, is disposed when it arrives.
      .then(() => (session ? session.close() : transport.close()))
      .finally(() => {
        stdin.off('end', onEnd)
        resolveClosed()
      })
    return closing
  }
  const onClose = (): void => void close()
  // Input over: answer what was asked (once there is a server to answer), then close.
  const onEnd = (): void => {
    stdin.off('end', onEnd)
    void settled.then(() => transport.pending.drained(STDIO_DRAIN_MS)).finally(close)
  }
  stdin.on('end', onEnd)
  transport.onclose = onClose
  await transport.open()
  const ready = openStdioSession(createManager, rest, transport, {
    closing: () => closing !== undefined,
    failed: close,
    made: (made) => {
      session = made
      made.server.onclose = onClose
    },
  })
  ready.then(settle, settle)
  // The caller may never look at `ready`; its failure is reported through `closed`'s caller.
  ready.catch(() => undefined)
  return { ready, closed, close, [Symbol.asyncDispose]: close }
}

/** What `openStdioSession` tells and asks the server it opens for. */
interface StdioSessionHooks {
  /** True once the server is closing (a session made then is closed at once). */
  closing(): boolean
  /** The manager could not be made: close the server. */
  failed(): Promise<void>
  /** The session is made and about to take the transport. */
  made(session: SkillMcpSession): void
}

/** Makes the session's manager and server and connects it to the held transport. */
async function openStdioSession(
  createManager: McpSessionFactoryOptions['createManager'],
  rest: Omit<McpSessionFactoryOptions, 'createManager'>,
  transport: HeldTransport,
  hooks: StdioSessionHooks,
): Promise<SkillMcpSession> {
  let opened: Awaited<ReturnType<typeof openSessionManager>>
  try {
    opened = await openSessionManager(createManager, randomUUID())
  } catch (err) {
    await transport.fail('The server could not start its skill session.')
    await hooks.failed()
    throw err
  }
  const { manager, disposables } = opened
  const made = createSkillMcpServer({ ...rest, manager, disposeManager: true, disposables })
  if (hooks.closing()) {
    await made.close()
    throw new Error('the stdio session closed before its manager was ready')
  }
  hooks.made(made)
  await made.server.connect(transport)
  return made
}
