import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { SkillMcpServerIdentity } from './create-skill-mcp-server.js'

/**
 * The current MCP revision: no `initialize`, no session; every request
 * carries its revision, client and capabilities in `params._meta`, and the
 * server answers `server/discover`. Spoken beside every revision the SDK
 * (1.x) negotiates through `initialize`.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28'

/** What `server/discover` lists: the current revision first, then what `initialize` negotiates. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS,
]

/** The `_meta` key of a request's revision (2026-07-28's per-request envelope). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion'

/** The `_meta` key of the server's identity on a 2026-07-28 result. */
const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo'

/** JSON-RPC code of 2026-07-28's "unsupported protocol version" (data: supported, requested). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022

/** The results 2026-07-28 lets a client cache; each carries `ttlMs` and `cacheScope`. */
const CACHEABLE: ReadonlySet<string> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
])

/**
 * How long a client may keep a cacheable result. Short and private: a
 * session's tools and resources change with every load, and another
 * client's view is not this one's.
 */
const CACHE = { ttlMs: 0, cacheScope: 'private' } as const

/** `server/discover` as the SDK's `Server` dispatches it (any params). */
export const DiscoverRequestSchema = z.object({
  method: z.literal('server/discover'),
  params: z.record(z.string(), z.unknown()).optional(),
})

/**
 * The revision a request asks for in its `_meta` envelope, when it has one:
 * a 2026-07-28 client states it on every request; a 2025 client never does.
 */
export function requestedRevision(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || !('method' in message)) return undefined
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta
  const version = meta?.[PROTOCOL_VERSION_META_KEY]
  return typeof version === 'string' ? version : undefined
}

/** True when `version` is 2026-07-28 or later: the stateless revisions, told apart by date. */
export function isModernRevision(version: string | undefined): boolean {
  return version !== undefined && version >= MODERN_PROTOCOL_VERSION
}

/**
 * What -32022 carries for a request stating a revision this server does not
 * speak (the ones it does, and the one asked), or undefined when it may be
 * served.
 */
export function unsupportedRevision(
  version: string,
): { supported: string[]; requested: string } | undefined {
  if (SERVED_PROTOCOL_VERSIONS.includes(version)) return undefined
  return { supported: [...SERVED_PROTOCOL_VERSIONS], requested: version }
}

/** The `server/discover` result: the revisions served, the capabilities and instructions `initialize` gives. */
export function discoverResult(identity: SkillMcpServerIdentity): Record<string, unknown> {
  return stampModernResult('server/discover', identity.serverInfo, {
    supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
    capabilities: identity.capabilities,
    ...(identity.instructions !== undefined && { instructions: identity.instructions }),
  })
}

/**
 * A result as 2026-07-28 requires it: `resultType: "complete"` (unless the
 * handler set one), `ttlMs` and `cacheScope` on the cacheable methods, and
 * the server's identity in `_meta`. A 2025 client gets results unchanged:
 * this is applied only to answers of requests that stated 2026-07-28.
 */
export function stampModernResult(
  method: string,
  serverInfo: { readonly name: string; readonly version: string },
  result: Record<string, unknown>,
): Record<string, unknown> {
  const meta = (result._meta ?? {}) as Record<string, unknown>
  return {
    ...(CACHEABLE.has(method) && CACHE),
    ...result,
    resultType: result.resultType ?? 'complete',
    _meta: { [SERVER_INFO_META_KEY]: serverInfo, ...meta },
  }
}

/** The revision `initialize` answers a 2025 client (the SDK's rule: the client's, when supported). */
export function legacyRevision(asked: unknown): string {
  return typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
    ? asked
    : LATEST_PROTOCOL_VERSION
}
