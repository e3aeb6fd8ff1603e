import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { SPAN_ATTRIBUTE } from '../../src/common/tracing.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

const onLinux = process.platform === 'linux'

// A skill with two sh scripts: one echoes its argument and a marker, one
// fails. Its folder, the argument and the output must never reach a span.
const SKILL_MD = '---\nname: tracer\ndescription: Echoes, and fails.\n---\n\nRun the scripts.\n'
const SIDECAR = `scripts:
  - name: hello
    path: scripts/hello.sh
    description: Echoes its word.
    interpreter: sh
    params:
      - name: word
        type: string
        required: true
        positional: true
  - name: fail
    path: scripts/fail.sh
    description: Exits 3.
    interpreter: sh
`
const ARGUMENT = 'argument-value-7f3a'
const OUTPUT = 'output-marker-91c2'
const root = mkdtempSync(join(tmpdir(), 'skillhost-mcp-trace-'))
// A client's trace: every request below is sent as a child of this span.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const contextManager = new AsyncLocalStorageContextManager()
let sandbox: ScriptSandbox
let server: McpHttpServer
beforeAll(async () => {
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(contextManager.enable())
  if (!onLinux) return
  const skill = join(root, 'tracer')
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  writeFileSync(join(skill, 'SKILL.md'), SKILL_MD)
  writeFileSync(join(skill, 'skillhost.yaml'), SIDECAR)
  writeFileSync(join(skill, 'scripts/hello.sh'), `echo "$1 ${OUTPUT} $0"\n`)
  writeFileSync(join(skill, 'scripts/fail.sh'), 'echo "no luck in $0" >&2\nexit 3\n')
  chmodSync(root, 0o755)
  sandbox = await createScriptSandbox({ maxTimeoutSeconds: 30, defaultTimeoutSeconds: 30 })
  server = await serveMcpHttp({
    createManager: () =>
      createSkillManager({
        sources: [new FileSystemSkillSource({ roots: [root] })],
        gate: () => undefined,
        scripts: sandbox.config,
      }),
  })
})
afterAll(async () => {
  await server?.close()
  await sandbox?.dispose()
  await provider.shutdown()
  trace.disable()
  context.disable()
  rmSync(root, { recursive: true, force: true })
})
beforeEach(() => exporter.reset())

/** A real SDK client over Streamable HTTP, with `headers` on every HTTP request. */
async function connect(headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(server.url, { requestInit: { headers } })
  const client = new Client({ name: 'trace-test', version: '1.0.0' })
  await client.connect(transport)
  const call = async (
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ) =>
    (await client.callTool({
      name,
      arguments: args,
      ...(meta && { _meta: meta }),
    })) as CallToolResult
  return { client, call }
}

const skillhostSpans = (): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.name.startsWith('skillhost.'))
const named = (name: string): ReadableSpan[] => skillhostSpans().filter((s) => s.name === name)
const only = (name: string): ReadableSpan => {
  const found = named(name)
  expect(found, name).toHaveLength(1)
  return found[0] as ReadableSpan
}
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

/** Every span's attribute values and status message, with where each came from. */
function everyValue(): { where: string; value: string }[] {
  return exporter.getFinishedSpans().flatMap((span) => [
    ...Object.entries(span.attributes).map(([key, value]) => ({
      where: `${span.name} ${key}`,
      value: String(value),
    })),
    { where: `${span.name} status`, value: span.status.message ?? '' },
    ...span.events.map((e) => ({ where: `${span.name} event`, value: e.name })),
  ])
}

describe.runIf(onLinux)('OpenTelemetry spans (issue 41, item 3)', () => {
  it('load_skill → script call → unload_skill: spans with the client as parent, the skill, tier and outcome, and no host path, argument or output', async () => {
    const { client, call } = await connect()
    const meta = { traceparent: TRACEPARENT }
    expect((await call('load_skill', { skill: 'tracer' }, meta)).isError).toBeFalsy()
    const ran = await call('run_tracer_hello', { word: ARGUMENT }, meta)
    expect(ran.isError).toBeFalsy()
    expect(JSON.stringify(ran.content)).toContain(OUTPUT)
    const failed = await call('run_tracer_fail', {}, meta)
    expect(failed.isError).toBe(true)
    expect((await call('unload_skill', { skill: 'tracer' }, meta)).isError).toBeFalsy()
    await client.close()

    const load = only('skillhost.load_skill')
    const script = named('skillhost.script_call')
    const unload = only('skillhost.unload_skill')
    expect(script).toHaveLength(2)
    const [hello, fail] = script as [ReadableSpan, ReadableSpan]
    const version = load.attributes[SPAN_ATTRIBUTE.skillVersion]
    expect(typeof version).toBe('string')
    expect(load.attributes).toEqual({
      [SPAN_ATTRIBUTE.tool]: 'load_skill',
      [SPAN_ATTRIBUTE.tier]: 'lifecycle',
      [SPAN_ATTRIBUTE.skillId]: 'tracer',
      [SPAN_ATTRIBUTE.skillVersion]: version,
      [SPAN_ATTRIBUTE.outcome]: 'ok',
    })
    expect(hello.attributes).toEqual({
      [SPAN_ATTRIBUTE.tool]: 'run_tracer_hello',
      [SPAN_ATTRIBUTE.tier]: 'script',
      [SPAN_ATTRIBUTE.skillId]: 'tracer',
      [SPAN_ATTRIBUTE.skillVersion]: version,
      [SPAN_ATTRIBUTE.outcome]: 'ok',
    })
    expect(fail.attributes[SPAN_ATTRIBUTE.outcome]).toBe('E_SKILL_SCRIPT_FAILED')
    expect(fail.status).toEqual({ code: SpanStatusCode.ERROR, message: 'E_SKILL_SCRIPT_FAILED' })
    expect(hello.status.code).not.toBe(SpanStatusCode.ERROR)
    expect(unload.attributes).toMatchObject({
      [SPAN_ATTRIBUTE.tool]: 'unload_skill',
      [SPAN_ATTRIBUTE.skillId]: 'tracer',
      [SPAN_ATTRIBUTE.outcome]: 'ok',
    })
    // Each request's spans continue the client's trace, parented on its span.
    for (const span of [load, hello, fail, unload]) {
      expect(span.spanContext().traceId, span.name).toBe(TRACE_ID)
      expect(parentOf(span), span.name).toBe(PARENT_ID)
    }
    // The skill copy is made once, under the call (or the load) that first needed it.
    const copy = only('skillhost.materialize')
    expect(copy.spanContext().traceId).toBe(TRACE_ID)
    expect([load.spanContext().spanId, hello.spanContext().spanId]).toContain(parentOf(copy))
    expect(copy.attributes[SPAN_ATTRIBUTE.skillId]).toBe('tracer')
    expect(copy.attributes[SPAN_ATTRIBUTE.count]).toBe(4) // SKILL.md, skillhost.yaml, two scripts
    // A session's discovery pass is traced too (at session start: outside any request).
    expect(named('skillhost.discovery').length).toBeGreaterThanOrEqual(1)

    // The closed vocabulary: no key outside it, no value with a host path, the argument or the output.
    const keys = new Set<string>(Object.values(SPAN_ATTRIBUTE))
    for (const span of skillhostSpans())
      for (const key of Object.keys(span.attributes)) expect(keys, `${span.name}`).toContain(key)
    const forbidden = [root, sandbox.baseDir, process.cwd(), tmpdir(), homedir()]
    const values = everyValue()
    expect(values.length).toBeGreaterThan(20)
    for (const { where, value } of values) {
      for (const path of forbidden) expect(value, where).not.toContain(path)
      expect(value, where).not.toContain(ARGUMENT)
      expect(value, where).not.toContain(OUTPUT)
    }
  })

  it("continues a client's traceparent sent as the HTTP header; _meta wins when both are sent", async () => {
    const { client, call } = await connect({ traceparent: TRACEPARENT })
    await call('list_skills', {})
    const other = '0af7651916cd43dd8448eb211c80319c'
    await call('list_loaded_skills', {}, { traceparent: `00-${other}-b7ad6b7169203331-01` })
    await client.close()
    const list = only('skillhost.list_skills')
    expect(list.spanContext().traceId).toBe(TRACE_ID)
    expect(parentOf(list)).toBe(PARENT_ID)
    const loaded = only('skillhost.list_loaded_skills')
    expect(loaded.spanContext().traceId).toBe(other)
    expect(parentOf(loaded)).toBe('b7ad6b7169203331')
  })

  it('a malformed or absent traceparent starts a trace of its own', async () => {
    const { client, call } = await connect()
    const bad = [
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
      `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      42,
    ]
    for (const traceparent of bad) await call('list_skills', {}, { traceparent })
    await call('list_skills', {})
    await client.close()
    const lists = named('skillhost.list_skills')
    expect(lists).toHaveLength(bad.length + 1)
    for (const span of lists) {
      expect(parentOf(span)).toBeUndefined()
      expect(span.spanContext().traceId).not.toBe(TRACE_ID)
    }
  })
})
