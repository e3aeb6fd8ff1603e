import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { DisposableStore } from '../../src/common/disposable.js'
import { SkillHostError } from '../../src/common/errors.js'
import { SPAN_ATTRIBUTE, type SpanFacts, traced } from '../../src/common/tracing.js'
import { createTurnContext } from '../../src/common/turn-context.js'
import type { SkillDescriptor } from '../../src/sources/types.js'
import { createQuickJsGuest } from '../../src/tiers/isolated/index.js'
import { createIsolatedForge } from '../../src/tiers/isolated/tier.js'
import { forgeSkillTool } from '../../src/tiers/skill-tool-envelope.js'
import { tool } from '../helpers/isolated.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const contextManager = new AsyncLocalStorageContextManager()

/** Registers the SDK for one test; `afterEach` takes it away again. */
function withSdk(): void {
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(contextManager.enable())
}
afterEach(() => {
  trace.disable()
  context.disable()
  exporter.reset()
})
afterAll(() => provider.shutdown())

const spans = (): ReadableSpan[] => exporter.getFinishedSpans()

describe('traced (issue 41, item 3)', () => {
  it('with no SDK registered runs the work in a span that records nothing, and passes values and throws through', async () => {
    // A context manager but no SDK: no span is made active, none is recorded.
    context.setGlobalContextManager(contextManager.enable())
    let active: unknown = 'unset'
    const value = await traced('skillhost.discovery', { skillId: 'x' }, (span) => {
      active = trace.getActiveSpan()
      span.note({ count: 3 })
      return 7
    })
    expect(value).toBe(7)
    expect(active).toBeUndefined()
    const boom = new SkillHostError('E_SKILL_NOT_FOUND', 'nope')
    await expect(
      traced('skillhost.discovery', {}, () => {
        throw boom
      }),
    ).rejects.toBe(boom)
    // Registering an SDK afterwards shows nothing of those calls.
    context.disable()
    withSdk()
    expect(spans()).toEqual([])
  })

  it('with no SDK registered still carries a client trace: the work runs under a span of that trace', async () => {
    // A remote parent (a client's traceparent) must still reach the work
    // when no SDK is registered, whichever way `traced` skips its own span.
    context.setGlobalContextManager(contextManager.enable())
    const parent = {
      traceId: 'a1'.repeat(16),
      spanId: 'b2'.repeat(8),
      traceFlags: 1,
      isRemote: true,
    }
    let seen: string | undefined = 'unset'
    await context.with(trace.setSpanContext(context.active(), parent), () =>
      traced('skillhost.discovery', {}, () => {
        seen = trace.getActiveSpan()?.spanContext().traceId
      }),
    )
    expect(seen).toBe(parent.traceId)
    // Outside it, nothing is active.
    await traced('skillhost.discovery', {}, () => {
      seen = trace.getActiveSpan()?.spanContext().traceId
    })
    expect(seen).toBeUndefined()
    context.disable()
  })

  it('keeps to the closed keys, escapes and bounds ids, and records a failure by its code only', async () => {
    withSdk()
    const facts = {
      skillId: `evil\n\u001b[31m${'x'.repeat(300)}`,
      path: '/home/someone/secret',
      tier: 'module',
    } as unknown as SpanFacts
    await expect(
      traced('skillhost.module_call', facts, async (span) => {
        span.note({ skillVersion: 'v1', output: 'the output' } as unknown as SpanFacts)
        throw new Error('failed reading /home/someone/secret/file')
      }),
    ).rejects.toThrow('/home/someone')
    const [span] = spans()
    expect(Object.keys(span?.attributes ?? {}).sort()).toEqual(
      [
        SPAN_ATTRIBUTE.skillId,
        SPAN_ATTRIBUTE.tier,
        SPAN_ATTRIBUTE.skillVersion,
        SPAN_ATTRIBUTE.outcome,
      ].sort(),
    )
    const id = String(span?.attributes[SPAN_ATTRIBUTE.skillId])
    expect(id.includes('\n') || id.includes('\u001b')).toBe(false)
    expect(id.startsWith('evil\\n\\u001b[31m')).toBe(true)
    expect(span?.attributes[SPAN_ATTRIBUTE.outcome]).toBe('error')
    expect(span?.status.message).toBe('error')
    // The exception (message, stack) is never recorded as an event.
    expect(span?.events).toEqual([])
  })

  it('nests: a span started inside another is its child', async () => {
    withSdk()
    await traced('skillhost.load_skill', { tool: 'load_skill' }, () =>
      traced('skillhost.discovery', {}, async () => undefined),
    )
    const [inner, outer] = spans()
    expect(inner?.name).toBe('skillhost.discovery')
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId)
  })
})

describe('the tool-call envelope traces every tier', () => {
  const skill = { id: 'demo', version: '1' }

  it('a module call is one skillhost.module_call span with tool, skill, tier and outcome', async () => {
    withSdk()
    const forged = forgeSkillTool({
      name: 'demo_echo',
      description: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      tier: 'module',
      skill,
      gate: () => undefined,
      run: (args: { text?: string }) => `echo ${args.text}`,
    })
    await forged.execute({ text: 'argument-value' }, createTurnContext())
    const [span] = spans()
    expect(span?.name).toBe('skillhost.module_call')
    expect(span?.attributes).toEqual({
      [SPAN_ATTRIBUTE.tool]: 'demo_echo',
      [SPAN_ATTRIBUTE.skillId]: 'demo',
      [SPAN_ATTRIBUTE.skillVersion]: '1',
      [SPAN_ATTRIBUTE.tier]: 'module',
      [SPAN_ATTRIBUTE.outcome]: 'ok',
    })
  })

  it('an isolated call is a skillhost.isolated_call span; a guest throw is its code', async () => {
    withSdk()
    const pool = createQuickJsGuest({ poolSize: 1 })
    const store = new DisposableStore()
    try {
      const params = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
      const [forged] = await createIsolatedForge(
        { resolveGuest: pool.resolveGuest, maxTimeoutSeconds: 30, defaultTimeoutSeconds: 20 },
        () => undefined,
      ).forge(
        {
          id: 'demo',
          version: '1',
          source: { id: 'demo', version: '1' },
          descriptor: {
            id: 'demo',
            isolatedTools: [
              tool('async (a) => { if (a.n < 0) throw new Error("neg"); return a.n }', params),
            ],
          } as unknown as SkillDescriptor,
          store,
          enter: () => {},
          exit: () => {},
        },
        undefined as never,
        new AbortController().signal,
      )
      const ctx = createTurnContext()
      await forged?.execute({ n: 1 }, ctx)
      await expect(forged?.execute({ n: -1 }, ctx)).rejects.toThrow()
      const calls = spans().filter((s) => s.name === 'skillhost.isolated_call')
      expect(calls.map((s) => s.attributes[SPAN_ATTRIBUTE.outcome])).toEqual([
        'ok',
        'E_SKILL_ISOLATED_THREW',
      ])
      expect(calls[0]?.attributes[SPAN_ATTRIBUTE.tier]).toBe('isolated')
    } finally {
      await store.dispose()
      await pool.dispose()
    }
  })
})
