import { isModernRevision, requestedRevision, unsupportedRevision } from './protocol-revision.js'

/**
 * The `_meta` key of a 2026-07-28 request's client capabilities: that
 * revision declares them per request (there is no `initialize`), and a
 * server must not infer them from an earlier request.
 */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities'

/** How much a client may declare: far beyond any real declaration, small enough to walk for free. */
export const CLIENT_CAPABILITY_LIMITS = { bytes: 16_384, depth: 8, keys: 512 } as const

/** The capabilities whose value the schema types as an object, when present. */
const OBJECT_MEMBERS = ['experimental', 'sampling', 'elicitation', 'roots', 'extensions', 'tasks']

/** Why a 2026-07-28 request's client capabilities are refused -32602; never what the client sent. */
export type ClientCapabilitiesProblem = 'missing' | 'not an object' | 'too large' | 'malformed'

/**
 * Checks the client capabilities a request states, as 2026-07-28 requires
 * them: present on every request that states that revision (the envelope's
 * two required keys are its revision and these), a JSON object, each known
 * capability an object. Bounded: more than `CLIENT_CAPABILITY_LIMITS` (UTF-8
 * bytes of its JSON, nesting, keys) is refused before anything reads it.
 * Returns undefined for a request that may be served, for `server/discover`
 * (which needs no capability and is answered before any session exists),
 * and for every request that does not state 2026-07-28 (a 2025 client
 * declared its capabilities in `initialize`).
 */
export function checkClientCapabilities(request: unknown): ClientCapabilitiesProblem | undefined {
  const version = requestedRevision(request)
  // A revision not served is answered -32022 first, whatever else the request says.
  if (!isModernRevision(version) || unsupportedRevision(version as string)) return undefined
  // The probe a client sends before it knows what to declare; answered from the server's identity.
  if ((request as { method?: unknown }).method === 'server/discover') return undefined
  const meta = (request as { params?: { _meta?: Record<string, unknown> } }).params?._meta
  if (meta === undefined || !Object.hasOwn(meta, CLIENT_CAPABILITIES_META_KEY)) return 'missing'
  const declared = meta[CLIENT_CAPABILITIES_META_KEY]
  if (!isObject(declared)) return 'not an object'
  if (!withinLimits(declared)) return 'too large'
  for (const member of OBJECT_MEMBERS)
    if (Object.hasOwn(declared, member) && !isObject(declared[member])) return 'malformed'
  return undefined
}

/** The -32602 message for a refused declaration: fixed words naming the key, never its value. */
export function clientCapabilitiesMessage(problem: ClientCapabilitiesProblem): string {
  return problem === 'missing'
    ? `Invalid params: a 2026-07-28 request must state its client capabilities in _meta["${CLIENT_CAPABILITIES_META_KEY}"].`
    : `Invalid params: _meta["${CLIENT_CAPABILITIES_META_KEY}"] is ${problem === 'too large' ? 'too large' : 'not a capabilities object'}.`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * True when `value` stays within the limits. Walked with an explicit stack
 * and a key budget, so a hostile declaration (deep, wide or huge) costs at
 * most `keys` steps and never recurses.
 */
function withinLimits(value: Record<string, unknown>): boolean {
  const { bytes, depth, keys } = CLIENT_CAPABILITY_LIMITS
  let budget = keys
  const stack: Array<{ node: unknown; level: number }> = [{ node: value, level: 1 }]
  while (stack.length > 0) {
    const { node, level } = stack.pop() as { node: unknown; level: number }
    if (typeof node !== 'object' || node === null) continue
    if (level > depth) return false
    const children = Array.isArray(node) ? node : Object.values(node)
    budget -= children.length
    if (budget < 0) return false
    for (const child of children) stack.push({ node: child, level: level + 1 })
  }
  return Buffer.byteLength(JSON.stringify(value)) <= bytes
}
