import type { ServerResponse } from 'node:http'
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js'
import { type SkillMcpServerIdentity, skillMcpServerIdentity } from './create-skill-mcp-server.js'
import type { HttpServeContext, OpenListen } from './http-session-start.js'
import { withThrowawaySession } from './http-throwaway-session.js'
import { stampModernResult } from './protocol-revision.js'
import { SSE_EVENT_LIMITS } from './sse-event-store.js'

/** The `_meta` key naming the `subscriptions/listen` request a notification was delivered for. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId'

/** How long a quiet listen stream waits between `: keepalive` comments, and how many URIs a filter may name. */
export const LISTEN_LIMITS = { keepAliveMs: 15_000, uris: 256, uriChars: 2_048 } as const

/** What a client opts in to on `subscriptions/listen` (each type opt-in). */
export interface SubscriptionFilter {
  toolsListChanged?: true
  promptsListChanged?: true
  resourcesListChanged?: true
  resourceSubscriptions?: string[]
}

/** Which notification each list-change bit of a filter admits. */
const CHANGE_BITS: ReadonlyArray<[keyof SubscriptionFilter, string]> = [
  ['toolsListChanged', 'notifications/tools/list_changed'],
  ['promptsListChanged', 'notifications/prompts/list_changed'],
  ['resourcesListChanged', 'notifications/resources/list_changed'],
]

/**
 * The filter a `subscriptions/listen` request asks for, or undefined when
 * `params.notifications` is missing or not the filter's shape (booleans,
 * and a bounded array of bounded strings): refused -32602.
 */
export function listenFilter(params: unknown): SubscriptionFilter | undefined {
  const wanted = (params as { notifications?: unknown } | undefined)?.notifications
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) return undefined
  const filter: SubscriptionFilter = {}
  for (const [bit] of CHANGE_BITS) {
    const value = (wanted as Record<string, unknown>)[bit]
    if (value !== undefined && typeof value !== 'boolean') return undefined
    if (value === true) filter[bit as 'toolsListChanged'] = true
  }
  const uris = (wanted as Record<string, unknown>).resourceSubscriptions
  if (uris === undefined) return filter
  if (!Array.isArray(uris) || uris.length > LISTEN_LIMITS.uris) return undefined
  if (!uris.every((u) => typeof u === 'string' && u.length <= LISTEN_LIMITS.uriChars))
    return undefined
  if (uris.length > 0) filter.resourceSubscriptions = [...uris]
  return filter
}

/**
 * What of `wanted` this server honours: a list-change type whose
 * `listChanged` capability it declares; resource updates only with
 * `resources.subscribe`, which skillhost does not declare (it never sends
 * `notifications/resources/updated`), so never.
 */
export function honouredFilter(
  wanted: SubscriptionFilter,
  capabilities: SkillMcpServerIdentity['capabilities'],
): SubscriptionFilter {
  const declared: Record<string, boolean> = {
    toolsListChanged: capabilities.tools.listChanged,
    resourcesListChanged: capabilities.resources.listChanged,
  }
  const honoured: SubscriptionFilter = {}
  for (const [bit] of CHANGE_BITS)
    if (wanted[bit] === true && declared[bit] === true) honoured[bit as 'toolsListChanged'] = true
  return honoured
}

/**
 * Serves `subscriptions/listen` over stateless HTTP (2026-07-28): the
 * response is an SSE stream that starts with
 * `notifications/subscriptions/acknowledged` (what is honoured, see
 * `honouredFilter`), then carries each honoured change notice of a session
 * of its own (its catalog: a watched skill root that changes refreshes it,
 * and `notifications/resources/list_changed` follows), each stamped with
 * the listen request's id under `SUBSCRIPTION_ID_META_KEY`, with a
 * keep-alive comment while quiet. The session counts against the session
 * limits while the stream is open and ends with it. When nothing is
 * honoured, or the server closes, the stream ends with the listen request's
 * result; a client that goes away ends it without one.
 */
export async function serveListen(
  ctx: HttpServeContext,
  res: ServerResponse,
  request: JSONRPCRequest,
): Promise<void> {
  const wanted = listenFilter(request.params)
  if (!wanted) {
    const message = `Invalid params: subscriptions/listen needs a notifications filter (booleans; at most ${LISTEN_LIMITS.uris} resource URIs).`
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.InvalidParams, message },
      }),
    )
    return
  }
  const identity = skillMcpServerIdentity(ctx.sessionOptions)
  const honoured = honouredFilter(wanted, identity.capabilities)
  const stream = new ListenStream(res, request.id, identity.serverInfo)
  if (Object.keys(honoured).length === 0) return stream.open(honoured).end()
  // Refused (503) before the stream opens when the session limits are reached.
  await withThrowawaySession(ctx, res, async ({ session, manager, closed }) => {
    const open: OpenListen = {
      end: () => stream.end(),
      refresh: async () => void (await manager.refresh()),
    }
    ctx.listens.add(open)
    try {
      await session.server.connect(stream.open(honoured))
      await closed
    } finally {
      ctx.listens.delete(open)
    }
  })
}

/** One listen request's SSE stream and the transport its session's notices go out by. */
class ListenStream implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  readonly #res: ServerResponse
  readonly #id: JSONRPCRequest['id']
  readonly #serverInfo: SkillMcpServerIdentity['serverInfo']
  #admits: ReadonlySet<string> = new Set()
  #timer: NodeJS.Timeout | undefined

  constructor(
    res: ServerResponse,
    id: JSONRPCRequest['id'],
    serverInfo: SkillMcpServerIdentity['serverInfo'],
  ) {
    this.#res = res
    this.#id = id
    this.#serverInfo = serverInfo
  }

  /** Opens the stream with its acknowledgement; keep-alives while it is quiet. */
  open(honoured: SubscriptionFilter): this {
    this.#admits = new Set(CHANGE_BITS.filter(([bit]) => honoured[bit]).map(([, method]) => method))
    if (!this.#live()) return this
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    })
    this.#write(`retry: ${SSE_EVENT_LIMITS.retryMs}\n`, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: honoured, _meta: { [SUBSCRIPTION_ID_META_KEY]: this.#id } },
    })
    this.#timer = setInterval(
      () => this.#live() && this.#res.write(': keepalive\n\n'),
      LISTEN_LIMITS.keepAliveMs,
    )
    this.#timer.unref?.()
    this.#res.once('close', () => clearInterval(this.#timer))
    return this
  }

  /** Ends the subscription gracefully: the listen request's result, then the end of the stream. */
  end(): void {
    clearInterval(this.#timer)
    if (!this.#live()) return
    const result = stampModernResult('subscriptions/listen', this.#serverInfo, {
      _meta: { [SUBSCRIPTION_ID_META_KEY]: this.#id },
    })
    this.#write('', { jsonrpc: '2.0', id: this.#id, result } as JSONRPCMessage)
    this.#res.end()
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    // Only the change notices the client opted in to, and only while the stream is open.
    if (!('method' in message) || 'id' in message || !this.#admits.has(message.method)) return
    const params = (message.params ?? {}) as Record<string, unknown>
    const meta = (params._meta ?? {}) as Record<string, unknown>
    this.#write('', {
      ...message,
      params: { ...params, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: this.#id } },
    } as JSONRPCMessage)
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    this.onclose?.()
  }

  #live(): boolean {
    return !this.#res.destroyed && !this.#res.writableEnded
  }

  #write(prefix: string, message: JSONRPCMessage): void {
    if (this.#live())
      this.#res.write(`${prefix}event: message\ndata: ${JSON.stringify(message)}\n\n`)
  }
}
