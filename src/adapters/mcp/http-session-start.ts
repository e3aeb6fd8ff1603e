import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { CatalogChangeFeed, SkillSessionStore } from '../../manager/index.js'
import { createSkillMcpServer, type SkillMcpSession } from './create-skill-mcp-server.js'
import type { HttpSessionEntry, HttpSessionTable } from './http-session-table.js'
import type { ServeMcpHttpOptions } from './serve-http-options.js'
import { type McpSessionFactoryOptions, openSessionManager } from './serve-stdio.js'
import { SharedSession } from './shared-session.js'

/** What every stage of `serveMcpHttp` shares: its options, its sessions and its store. */
export interface HttpServeContext {
  readonly createManager: McpSessionFactoryOptions['createManager']
  /** What each session's MCP server is made with (the factory options, minus the HTTP ones). */
  readonly sessionOptions: Omit<McpSessionFactoryOptions, 'createManager'>
  readonly store: SkillSessionStore | undefined
  readonly feed: CatalogChangeFeed | undefined
  readonly onSharedError: ServeMcpHttpOptions['onSharedError']
  readonly replica: string
  /** The digest of this server's credential: who owns the sessions it opens. */
  readonly owner: string
  readonly table: HttpSessionTable
  /** Restores under way, by session id, so concurrent requests share one. */
  readonly restoring: Map<string, Promise<HttpSessionEntry | undefined>>
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
      })
    : undefined
  session = createSkillMcpServer({
    ...ctx.sessionOptions,
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
    }),
  })
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessioninitialized: () => {
      if (fresh) ctx.table.register(id, entry, 'opened')
    },
  })
  const entry: HttpSessionEntry = {
    transport,
    session,
    manager,
    shared,
    lastSeen: Date.now(),
    inFlight: 0,
    streams: 0,
    owner: ctx.owner,
  }
  const made = session
  made.server.onclose = () => {
    ctx.table.endIfHeld(transport.sessionId, entry)
    void made.close().catch(() => undefined)
  }
  await made.server.connect(transport)
  return entry
}
