import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListToolsRequestSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { DisposableStore, SkillHostMetrics, Tool, TurnContext } from '../../common/index.js'
import { setResourceOwner, trackResource } from '../../common/internal.js'
import { forgeSkillTools } from '../../lifecycle-tools.js'
import type { AvailableSkillsOptions, SkillManager } from '../../manager/index.js'
import { LIFECYCLE_TOOL } from '../../manager/index.js'
import { assertCatalogBudget } from '../../manager/internal.js'
import { serveMcpLogging } from './mcp-logging.js'
import { serveToolCalls } from './serve-tool-calls.js'
import { serveSkillResources } from './skill-resources.js'
import { SkillServer } from './skill-server.js'
import { SKILLS_EXTENSION_ID } from './skills-extension/protocol.js'
import {
  type SkillsExtensionOptions,
  serveSkillsExtension,
} from './skills-extension/serve-skills-extension.js'
import { toolsListPage } from './tools-list-page.js'
import { WorkspaceResources } from './workspace-resources.js'

/** One finished tool call, for host-side logging (never sent to the client). */
export interface McpToolCallEvent {
  readonly tool: string
  readonly ok: boolean
  /** `renderError` text when the call failed. */
  readonly error?: string
  /** The original failure, host-side only. */
  readonly cause?: unknown
  /** The HTTP session the call belongs to (`serveMcpHttp` sets it); absent over stdio. */
  readonly sessionId?: string
}

/** Options for `createSkillMcpServer`. */
export interface SkillMcpServerOptions {
  readonly manager: SkillManager
  /** Your own tools; registered first, so they win any name collision with a skill. */
  readonly hostTools?: readonly Tool[]
  /** The lifecycle tools to offer. Default `forgeSkillTools(manager)`; `false` offers none. */
  readonly lifecycleTools?: readonly Tool[] | false
  /** Server name and version sent at initialization. */
  readonly serverInfo?: { readonly name: string; readonly version: string }
  /** Instructions sent at initialization. Defaults to a short note on the skill lifecycle. */
  readonly instructions?: string
  /** Dispose the manager when the session closes. Default false. */
  readonly disposeManager?: boolean
  /** Disposed when the session closes, after the manager (if `disposeManager`). */
  readonly disposables?: DisposableStore
  /** Called after every tool call, for logging. */
  readonly onToolCall?: (event: McpToolCallEvent) => void
  /**
   * Counts every tool call (kind, outcome code, skill id, duration) and
   * runs it as `metrics.run`, so what it does deep down (sandbox starts,
   * queue waits, spooled bytes, builds) is counted there too.
   */
  readonly metrics?: SkillHostMetrics
  /**
   * Wraps every `load_skill`, `unload_skill` and `refresh_skills` call (the
   * lifecycle calls that change what is loaded), e.g. to run it under a
   * shared session's lock and store its outcome. `run` performs the call.
   */
  readonly aroundLifecycleMutation?: <T>(tool: string, run: () => Promise<T>) => Promise<T>
  /** Asked after every tool call: text it returns leads that call's result (a one-time notice). */
  readonly takeNotice?: () => string | undefined
  /**
   * Awaited after every tool call that ran, before its result is sent (a
   * shared session stores its workspace here, so a result the client saw
   * implies its files are stored). When it throws, the call's result is
   * that error.
   */
  readonly afterToolCall?: () => Promise<void>
  /**
   * The authority of this session's workspace resource URIs
   * (`skillhost-workspace://<key>/…`): give one derived from the session
   * (`workspaceResourceKey`) so a URI stays valid wherever the session is
   * served. Default: random per server.
   */
  readonly workspaceResourceKey?: string
  /** The MCP Skills Extension (`skills/list`, `skills/get`; docs/mcp.md). On by default; `false` turns it off. */
  readonly skillsExtension?: SkillsExtensionOptions | false
  /**
   * Put the `<available_skills>` block (`manager.availableSkills(catalog)`:
   * within this budget, or the manager's `catalog` setting for `{}`) at the
   * end of `list_skills`' description in `tools/list`, as hosts list skills
   * in their skill tool's description. Its bytes change only when the
   * skills do (then `tools/list_changed` tells the client); loaded skills'
   * tools follow it. Paths are never shown, whatever `locations` or the
   * manager's setting say: the client loads by id. Default: no block.
   */
  readonly catalog?: AvailableSkillsOptions
}

/** `tool`'s description in `tools/list`: `list_skills` (the lifecycle one) carries the catalog block when asked. */
function listedDescription(
  tool: Tool,
  listTool: Tool | undefined,
  manager: SkillManager,
  catalog: AvailableSkillsOptions | undefined,
): string {
  if (tool !== listTool || catalog === undefined) return tool.description
  return `${tool.description}\n\n${manager.availableSkills({ ...catalog, locations: 'none' }).text}`
}

/** One MCP session: the server to connect to a transport and the session's long-lived turn context. */
export interface SkillMcpSession extends AsyncDisposable {
  /** The MCP server; `await session.server.connect(transport)`. */
  readonly server: Server
  /** The session's turn context: what `load_skill` projects into and `tools/list` shows. */
  readonly ctx: TurnContext
  /**
   * Closes the server, aborts the session context, (if asked) disposes the
   * manager, then disposes `disposables`. Idempotent.
   */
  close(): Promise<void>
}

const DEFAULT_INSTRUCTIONS =
  'Skills are loadable instruction sets with their own tools. Call list_skills to see them, load_skill to use one ' +
  '(its tools appear in your tool list), and unload_skill when done. Results stay readable by id with the artifact_* tools.'

/** What a skill MCP server says about itself at initialization. */
export interface SkillMcpServerIdentity {
  readonly serverInfo: { readonly name: string; readonly version: string }
  readonly capabilities: {
    readonly tools: { listChanged: true }
    readonly resources: { listChanged: true }
    /** `logging/setLevel` and `notifications/message`: gate decisions and script exits. */
    readonly logging: Record<string, never>
    readonly extensions?: { readonly [SKILLS_EXTENSION_ID]: Record<string, never> }
  }
  readonly instructions: string
}

/**
 * The one description of a skill MCP server's identity: its name and
 * version, capabilities and instructions. The server announces it, and a
 * transport that answers `initialize` before the server exists (see
 * `serveMcpStdio`) announces exactly the same.
 */
export function skillMcpServerIdentity(
  options: Pick<SkillMcpServerOptions, 'serverInfo' | 'instructions' | 'skillsExtension'>,
): SkillMcpServerIdentity {
  return {
    serverInfo: options.serverInfo ?? { name: 'skillhost', version: '0.0.0' },
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true },
      logging: {},
      // An empty object: the extension without `directoryRead`.
      ...(options.skillsExtension !== false && { extensions: { [SKILLS_EXTENSION_ID]: {} } }),
    },
    instructions: options.instructions ?? DEFAULT_INSTRUCTIONS,
  }
}

/** Answers `tools/list` in pages; `list_skills`' description carries the catalog when one is set. */
function serveToolsList(
  server: SkillServer,
  ctx: TurnContext,
  lifecycle: readonly Tool[] | undefined | false,
  options: SkillMcpServerOptions,
): void {
  const listTool = lifecycle ? lifecycle.find((t) => t.name === LIFECYCLE_TOOL.list) : undefined
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const page = toolsListPage(ctx.tools.all(), request.params?.cursor)
    return {
      tools: page.items.map(
        (tool): McpTool => ({
          name: tool.name,
          description: listedDescription(tool, listTool, options.manager, options.catalog),
          inputSchema: tool.jsonSchema as McpTool['inputSchema'],
        }),
      ),
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
    }
  })
}

/**
 * An MCP server (official SDK, low-level `Server`: tool lists here are
 * dynamic and described by plain JSON Schemas, which the high-level
 * `McpServer` does not take) serving one session of one manager.
 *
 * MCP has no per-turn context, so the session keeps one long-lived turn
 * context (`manager.createTurnContext()`): a loaded skill stays projected
 * until it is unloaded. `tools/list` is exactly what that context holds (the
 * lifecycle tools, host tools, projected skill tools and the artifact readers
 * once a skill brought them); `notifications/tools/list_changed` is sent
 * (coalesced) whenever that set changes and on every manager event (load,
 * unload, refresh, swap). Failures are `isError: true` results carrying
 * `renderError`'s `CODE: message` text; never a host path or stack.
 * Skill bodies travel in `load_skill`'s result (inline), or as a handle read
 * through the artifact reader tools. A loaded skill's files are resources
 * `skill://<id>/<path>` (see `serveSkillResources`), and
 * `notifications/resources/list_changed` is sent (coalesced) when a skill is
 * loaded, unloaded or swapped, and whenever the workspace changes
 * (`ManagerWorkspace.onChange`: a call, a script, or the host's own `put`). With scripts, the session's workspace files
 * are resources `skillhost-workspace://<session key>/<path>` too, and a call
 * that read or wrote some links them in its result (`WorkspaceResources`,
 * `withWorkspaceFiles`; docs/mcp.md, "Workspace files"). `logging/setLevel` is served: each tool call's
 * gate refusal and script exit go out as `notifications/message`
 * (`callLogRecords`), and a call sent with a progress token gets
 * `notifications/progress` until it ends (`trackProgress`), both on that
 * call's stream before its result.
 */
export function createSkillMcpServer(options: SkillMcpServerOptions): SkillMcpSession {
  const { manager } = options
  if (options.catalog !== undefined)
    assertCatalogBudget(options.catalog, 'createSkillMcpServer catalog')
  const lifetime = new AbortController()
  const ctx = manager.createTurnContext({ abortSignal: lifetime.signal })
  for (const tool of options.hostTools ?? []) ctx.tools.register(tool)
  const lifecycle = options.lifecycleTools ?? forgeSkillTools(manager)
  if (lifecycle) for (const tool of lifecycle) ctx.tools.register(tool)

  const { serverInfo, ...identity } = skillMcpServerIdentity(options)
  const server = new SkillServer(serverInfo, identity)

  serveToolsList(server, ctx, lifecycle, options)

  const extension = options.skillsExtension
  const workspace =
    manager.workspace && new WorkspaceResources(manager.workspace, options.workspaceResourceKey)
  serveSkillResources(
    server,
    manager,
    extension === false ? undefined : serveSkillsExtension(server, manager, extension),
    workspace,
  )
  const log = serveMcpLogging(server)
  const announceResources = coalesced(lifetime.signal, () => server.sendResourceListChanged())

  // Whoever changes the workspace (a call, a script, the host's put), its one home announces it.
  const stopWorkspace = manager.workspace?.onChange(announceResources)
  serveToolCalls(server, {
    ctx,
    lifecycleSet: new Set<Tool>(lifecycle || []),
    options,
    log,
    workspace,
  })
  const unsubscribe = announceChanges(server, ctx, options, lifetime.signal, announceResources)

  let closed: Promise<void> | undefined
  const close = (): Promise<void> => {
    // Deferred a microtask so `closed` is set before anything can re-enter close().
    closed ??= Promise.resolve().then(async () => {
      unsubscribe()
      stopWorkspace?.()
      lifetime.abort()
      try {
        await server.close()
      } finally {
        try {
          if (options.disposeManager) await manager.dispose()
        } finally {
          await options.disposables?.dispose()
        }
      }
    })
    untrack(closed)
    return closed
  }

  const session: SkillMcpSession = { server, ctx, close, [Symbol.asyncDispose]: close }
  const untrack = trackResource(
    'mcp-session',
    options.serverInfo?.name ?? 'skillhost',
    undefined,
    session,
  )
  // A session that disposes its manager owns it: a leak of either names the session.
  if (options.disposeManager) setResourceOwner(manager, session)
  return session
}

/** Sends `notify` once per microtask however often it is asked, and never after `closed` aborts. */
function coalesced(closed: AbortSignal, notify: () => Promise<void>): () => void {
  let pending = false
  return () => {
    if (pending || closed.aborted) return
    pending = true
    queueMicrotask(() => {
      pending = false
      // Before `initialized` or after close there is no one to tell; that is fine.
      notify().catch(() => undefined)
    })
  }
}

/**
 * Tells the client when the tools or the resources change (the context's
 * tools, the manager's loads, unloads and refreshes), coalesced per
 * microtask; returns what stops it.
 */
function announceChanges(
  server: Server,
  ctx: TurnContext,
  options: SkillMcpServerOptions,
  closed: AbortSignal,
  announceResources: () => void,
): () => void {
  const announce = coalesced(closed, () => server.sendToolListChanged())
  const unsubscribeTools = ctx.tools.onDidChange(announce)
  const unsubscribeManager = options.manager.onDidChange((event) => {
    announce()
    // The loaded skills, hence their files, change on these; a refresh changes
    // neither, but it can change the catalog the Skills Extension serves.
    if (event.kind !== 'refreshed' || options.skillsExtension !== false) announceResources()
  })
  return () => {
    unsubscribeTools()
    unsubscribeManager()
  }
}
