import {
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type TextMapGetter,
  TraceFlags,
  trace,
} from '@opentelemetry/api'

/** A request's headers as the SDK hands them over (`extra.requestInfo.headers`). */
type Headers = Readonly<Record<string, string | readonly string[] | undefined>>

/** Reads a carrier's string fields: `_meta` values and header values (first of a list). */
const getter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined
    if (typeof value === 'string') return value
    return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined
  },
}

/** W3C Trace Context `traceparent`, version 00 (and the prefix of a later version). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/**
 * `traceparent` (W3C Trace Context) as a remote parent in `base`, or
 * undefined when it is absent or malformed: version `ff`, extra fields on
 * version 00, an all-zero trace or span id are refused as the spec says.
 */
function fromTraceparent(base: Context, value: unknown): Context | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined
  const m = TRACEPARENT.exec(value.trim())
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined
  const parent = {
    traceId: m[2] as string,
    spanId: m[3] as string,
    traceFlags: Number.parseInt(m[4] as string, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  }
  return isSpanContextValid(parent) ? trace.setSpanContext(base, parent) : undefined
}

/**
 * The trace context an MCP request continues, when its client sent one:
 * `params._meta`'s `traceparent` (MCP's reserved key, SEP-414), else the
 * HTTP request's `traceparent` header. The host's registered propagator reads
 * both carriers first (the headers, then `_meta`, which wins), so a deployer
 * on B3 or with baggage keeps it; without one, or when it finds nothing, the
 * W3C `traceparent` is read here, so a client's trace is continued with the
 * API alone. A request that sent none runs in the context it was given.
 */
export function requestTraceContext(
  meta: Readonly<Record<string, unknown>> | undefined,
  headers: Headers | undefined,
): Context {
  const base = context.active()
  let found = base
  if (headers) found = propagation.extract(found, headers, getter)
  if (meta) found = propagation.extract(found, meta, getter)
  if (trace.getSpanContext(found) !== trace.getSpanContext(base)) return found
  return (
    fromTraceparent(ROOT_CONTEXT, meta?.traceparent) ??
    fromTraceparent(ROOT_CONTEXT, getter.get(headers ?? {}, 'traceparent')) ??
    base
  )
}
