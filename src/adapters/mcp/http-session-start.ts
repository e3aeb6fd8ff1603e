import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { CatalogChangeFeed, SkillSessionStore } from '../../manager/index.js'
import type { SessionWorkspaceStore } from '../../manager/internal.js'
import { createSkillMcpServer, type SkillMcpSession } from './create-skill-mcp-server.js'
import type { HttpSessionEntry, HttpSessionTable } from './http-session-table.js'
import type { ServeMcpHttpOptions } from './serve-http-options.js'
import { type McpSessionFactoryOptions, openSessionManager } from './serve-stdio.js'
import { SharedSession } from './shared-session.js'
import { SSE_EVENT_LIMITS, SseEventStore } from './sse-event-store.js'
import { workspaceResourceKey } from './workspace-resources.js'

/** What every stage of `serveMcpHttp` shares: its options, its sessions and its store. */
export interface HttpServeContext {
  readonly createManager: McpSessionFactoryOptions['createManager']
  /** What each session's MCP server is made with (the factory options, minus the HTTP ones). */
  readonly sessionOptions: Omit<McpSessionFactoryOptions, 'createManager'>
  readonly store: SkillSessionStore | undefined
  readonly feed: CatalogChangeFeed | undefined
  /** With `store`: where each session's workspace is kept, so it follows the session. */
  readonly workspaceStore: SessionWorkspaceStore | undefined
  readonly onSharedError: ServeMcpHttpOptions['onSharedError']
  readonly replica: string
  /** The digest of this server's credential: who owns the sessions it opens. */
  readonly owner: string
  readonly table: HttpSessionTable
  /** Restores under way, by session id, so concurrent requests share one. */
  readonly restoring: Map<string, Promise<HttpSessionEntry | undefined>>
  /** The open `subscriptions/listen` streams (`serveListen`), ended with the server and refreshed with the catalog. */
  readonly listens: Set<OpenListen>
}

/** One open `subscriptions/listen` stream, as the server that holds it sees it. */
export interface OpenListen {
  /** Ends it gracefully: the listen request's result, then the end of the stream. */
  end(): void
  /** Refreshes its session's catalog (another replica refreshed), so its change notices follow. */
  refresh(): Promise<void>
}

/**
 * Builds a session's manager, server and transport under `id`. A fresh
 * session registers when the transport accepts its initialize; a restored
 * one is registered by its restore.
 */
export async function startHttpSession(
  ctx: HttpServeContext,
  id: string,
  fresh: boolean,
): Promise<HttpSessionEntry> {
  const { manager, disposables } = await openSessionManager(ctx.createManager, id)
  let session: SkillMcpSession | undefined
  const shared = ctx.store
    ? new SharedSession({
        store: ctx.store,
        sessionId: id,
        replica: ctx.replica,
        manager,
        ctx: () => (session as SkillMcpSession).ctx,
        workspaceStore: ctx.workspaceStore,
      })
    : undefined
  const onToolCall = ctx.sessionOptions.onToolCall
  session = createSkillMcpServer({
    ...ctx.sessionOptions,
    // The host's log names the session each call belongs to.
    ...(onToolCall && { onToolCall: (e) => onToolCall({ ...e, sessionId: id }) }),
    manager,
    disposeManager: true,
    disposables,
    ...(shared && {
      aroundLifecycleMutation: async <T>(tool: string, run: () => Promise<T>): Promise<T> => {
        const result = await shared.mutate(run)
        if (tool === 'refresh_skills' && ctx.feed)
          ctx.feed.publish().catch((error) => ctx.onSharedError?.({ sessionId: id, error }))
        return result
      },
      takeNotice: () => shared.takeNotice(),
      ...(shared.mirrored && { afterToolCall: () => shared.storeWorkspace() }),
    }),
    // The same URIs on every process serving the session (a link made here is readable there).
    ...(ctx.store && { workspaceResourceKey: workspaceResourceKey(id) }),
  })
  // Events kept for resumption (`Last-Event-ID`); with a store, the SDK
  // starts each POST stream with a priming event carrying `retry:`.
  const events = new SseEventStore()
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    eventStore: events,
    retryInterval: SSE_EVENT_LIMITS.retryMs,
    onsessioninitialized: () => {
      if (fresh) ctx.table.register(id, entry, 'opened')
    },
  })
  const entry: HttpSessionEntry = {
    transport,
    session,
    manager,
    shared,
    events,
    lastSeen: Date.now(),
    inFlight: 0,
    streams: 0,
    owner: ctx.owner,
  }
  const made = session
  made.server.onclose = () => {
    events.clear()
    ctx.table.endIfHeld(transport.sessionId, entry)
    void made.close().catch(() => undefined)
  }
  await made.server.connect(transport)
  closeCancelledStreams(transport, events)
  return entry
}

/**
 * A request the client cancelled is owed nothing (no result, and the SDK
 * sends no notification of it): its POST stream is closed at once, not left
 * open with keep-alives, and its events forgotten, so a resume of it is
 * answered 400 and opens nothing.
 */
function closeCancelledStreams(
  transport: StreamableHTTPServerTransport,
  events: SseEventStore,
): void {
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    deliver?.(message, extra)
    if (!('method' in message) || message.method !== 'notifications/cancelled') return
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    events.forgetRequest(requestId)
    transport.closeSSEStream(requestId)
  }
}
