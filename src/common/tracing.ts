import { createRequire } from 'node:module'
import type { Attributes, Span, Tracer, TracerProvider } from '@opentelemetry/api'
import { escapeLine } from './escape-text.js'
import { failureLabel } from './outcome-label.js'

/**
 * The spans skillhost starts (docs/observability.md). Names are fixed and
 * few, so a trace backend can group them; what differs between two spans of
 * one name (the tool, the skill) is in their attributes.
 */
export type SkillhostSpanName =
  | 'skillhost.list_skills'
  | 'skillhost.load_skill'
  | 'skillhost.unload_skill'
  | 'skillhost.refresh_skills'
  | 'skillhost.list_loaded_skills'
  | 'skillhost.discovery'
  | 'skillhost.materialize'
  | 'skillhost.provision'
  | 'skillhost.provision_installer'
  | 'skillhost.module_call'
  | 'skillhost.isolated_call'
  | 'skillhost.script_call'

/**
 * What a span may say, and nothing else: names and ids skillhost checked,
 * codes from its own table and counts. The closed set of attribute keys is
 * `SPAN_ATTRIBUTE`; no argument value, output, message or host path has a
 * key to go under.
 */
export interface SpanFacts {
  /** A checked tool name (`load_skill`, `run_pdf_fill`). */
  readonly tool?: string
  /** The catalog id of the skill the span is about (never the id a caller asked for). */
  readonly skillId?: string
  readonly skillVersion?: string
  readonly tier?: 'lifecycle' | 'module' | 'isolated' | 'script'
  /** How many: skills found by a discovery, files in a skill copy, requirements in a build. */
  readonly count?: number
  /** Sources that failed in a discovery pass. */
  readonly failures?: number
}

/** The attribute key each fact goes under, and the outcome's: the whole vocabulary of skillhost's spans. */
export const SPAN_ATTRIBUTE = Object.freeze({
  tool: 'skillhost.tool',
  skillId: 'skillhost.skill.id',
  skillVersion: 'skillhost.skill.version',
  tier: 'skillhost.tier',
  count: 'skillhost.count',
  failures: 'skillhost.failures',
  /** `ok`, or the `SkillHostError` code the span's work ended with (`error` for any other throw: `failureLabel`). */
  outcome: 'skillhost.outcome',
} as const)

/** An id as an attribute shows it: one escaped line of at most 128 characters, whatever a source allowed. */
const bounded = (value: string): string => escapeLine(value.slice(0, 128))

/** `facts` as attributes, each under its one key; strings bounded and escaped. */
function attributesOf(facts: SpanFacts): Attributes {
  const out: Attributes = {}
  for (const key of Object.keys(facts) as (keyof SpanFacts)[]) {
    const value = facts[key]
    const name = SPAN_ATTRIBUTE[key]
    if (name === undefined) continue
    if (typeof value === 'string') out[name] = bounded(value)
    else if (typeof value === 'number' && Number.isFinite(value)) out[name] = value
  }
  return out
}

/** The span a traced function runs in: it may add facts it learns while it runs (the skill it loaded). */
export interface TracedSpan {
  note(facts: SpanFacts): void
}

const NOT_RECORDING: TracedSpan = Object.freeze({ note: () => undefined })

/** Ends `span` with the outcome: `ok`, or the failure's code as both the outcome and the status message. */
function end(span: Span, err: unknown, failed: boolean): void {
  const outcome = failed ? failureLabel(err) : 'ok'
  span.setAttribute(SPAN_ATTRIBUTE.outcome, outcome)
  if (failed) span.setStatus({ code: otel().SpanStatusCode.ERROR, message: outcome })
  span.end()
}

// The OpenTelemetry API is loaded with the first traced call, not with the
// modules that trace: a command that traces nothing (`skillhost validate`)
// skips its ~50 modules. Node resolves `import` and `require` of the package to
// the same CommonJS build, so this is the one instance the adapters import too.
let otelApi: typeof import('@opentelemetry/api') | undefined
const otel = (): typeof import('@opentelemetry/api') =>
  (otelApi ??= createRequire(import.meta.url)(
    '@opentelemetry/api',
  ) as typeof import('@opentelemetry/api'))

let provider: TracerProvider | undefined
let tracer: Tracer | undefined

/**
 * skillhost's tracer, got once per global provider: the API's proxy
 * follows a provider the host registers later, and a new one after
 * `trace.disable()` (a host or a test re-registering) gets a new tracer.
 */
function skillhostTracer(): Tracer {
  const current = otel().trace.getTracerProvider()
  if (current !== provider || tracer === undefined) {
    provider = current
    tracer = current.getTracer('skillhost')
  }
  return tracer
}

let noopProvider: TracerProvider | undefined

/**
 * Where `@opentelemetry/api` 1.x keeps what was registered with it (a
 * provider under `trace`, a context manager under `context`): the key its
 * `registerGlobal` uses, shared by every copy of the API of that major.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1')
type OtelGlobalSlot = { [OTEL_GLOBAL]?: { readonly trace?: unknown; readonly context?: unknown } }

/**
 * Whether a span made now could be neither recorded nor carried: no provider
 * registered (the API's proxy still delegates to its no-op) and no valid span
 * active (a client's `traceparent` included). Exactly when the no-op tracer's
 * span would have an invalid trace id, decided without making that span.
 * `traced` skips its span when this holds; a hot path may ask first and call
 * its work directly, sparing the closure `traced` takes.
 */
export function nothingToTrace(): boolean {
  // Nothing registered with the API at all (no provider, no context manager):
  // its proxy delegates to the no-op and the active context is the root, so
  // the answer is known without loading the API or asking it (one lookup).
  const registered = (globalThis as OtelGlobalSlot)[OTEL_GLOBAL]
  if (
    registered === undefined ||
    (registered.trace === undefined && registered.context === undefined)
  ) {
    return true
  }
  const api = otel()
  const current = api.trace.getTracerProvider()
  if (!(current instanceof api.ProxyTracerProvider)) return false
  noopProvider ??= new api.ProxyTracerProvider().getDelegate()
  if (current.getDelegate() !== noopProvider) return false
  const active = api.trace.getSpanContext(api.context.active())
  return active === undefined || !api.trace.isSpanContextValid(active)
}

/** `run` called as a traced function is, with a synchronous throw as a rejection. */
function untraced<T>(run: (span: TracedSpan) => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(run(NOT_RECORDING))
  } catch (err) {
    return Promise.reject(err)
  }
}

/**
 * Runs `run` in a new span `name`, the active span while it runs (a child
 * of the one active when it was called: a client's `traceparent`, a
 * lifecycle call), and ends the span with its outcome. Through
 * `@opentelemetry/api` only: with no SDK registered the tracer is the API's
 * no-op, and a span with no trace to belong to (the no-op's, outside any
 * client trace) is skipped outright: no attribute is built and no context
 * switched, so an untraced call costs one allocation. An exception is never
 * recorded on the span (its message and stack may carry paths and output);
 * its code is.
 */
export function traced<T>(
  name: SkillhostSpanName,
  facts: SpanFacts,
  run: (span: TracedSpan) => T | Promise<T>,
): Promise<T> {
  if (nothingToTrace()) return untraced(run)
  const span = skillhostTracer().startSpan(name)
  const recording = span.isRecording()
  if (!recording && span.spanContext().traceId === otel().INVALID_TRACEID) return untraced(run)
  if (recording) span.setAttributes(attributesOf(facts))
  const noted: TracedSpan = recording
    ? { note: (more) => span.setAttributes(attributesOf(more)) }
    : NOT_RECORDING
  const { context, trace } = otel()
  return context.with(trace.setSpan(context.active(), span), async () => {
    try {
      const value = await run(noted)
      end(span, undefined, false)
      return value
    } catch (err) {
      end(span, err, true)
      throw err
    }
  })
}
