import type { LanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'

/** The model the demo talks to, and how to introduce it. */
export interface DemoModel {
  readonly model: LanguageModel
  readonly label: string
  readonly scripted: boolean
}

type Call = MockLanguageModelV3['doGenerateCalls'][number]
type Result = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>

const USAGE = {
  inputTokens: {
    total: undefined,
    noCache: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

/** The tool results in a prompt, oldest first, as (tool, text) pairs. */
function resultsOf(call: Call): { tool: string; text: string }[] {
  const out: { tool: string; text: string }[] = []
  for (const message of call.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const o = part.output
      out.push({
        tool: part.toolName,
        text: 'value' in o && typeof o.value === 'string' ? o.value : JSON.stringify(o),
      })
    }
  }
  return out
}

let seq = 0
const toolCall = (toolName: string, args: Record<string, unknown>): Result => ({
  content: [
    { type: 'tool-call', toolCallId: `scripted_${++seq}`, toolName, input: JSON.stringify(args) },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: USAGE,
  warnings: [],
})
const say = (text: string): Result => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: USAGE,
  warnings: [],
})

/** One planned move of the scripted model: a tool call, taken only when its tool is offered. */
interface PlannedCall {
  readonly tool: string
  readonly args: (
    results: readonly { tool: string; text: string }[],
  ) => Record<string, unknown> | undefined
}

const BEFORE = { name: 'api', replicas: 2, ports: [80], tls: false }
const AFTER = { name: 'api', replicas: 3, ports: [80, 443], tls: true }

/** The conversion's retrievable id, as its spooled result names it. */
const conversionId = (results: readonly { tool: string; text: string }[]): string | undefined => {
  const converted = results.find((r) => r.tool === 'convert_units')
  return converted && /\[result (r_[0-9a-f]{16})\b/.exec(converted.text)?.[1]
}

// Each skill is loaded only while it is needed: one per tier, then the
// earlier result is re-read by id after every skill is gone.
const PLAN: readonly PlannedCall[] = [
  { tool: 'list_skills', args: () => ({}) },
  { tool: 'load_skill', args: () => ({ skill: 'unit-convert' }) },
  { tool: 'convert_units', args: () => ({ value: 26.2, from: 'mi', to: 'km' }) },
  { tool: 'unload_skill', args: () => ({ skill: 'unit-convert' }) },
  { tool: 'load_skill', args: () => ({ skill: 'json-tools' }) },
  { tool: 'json_diff', args: () => ({ before: BEFORE, after: AFTER }) },
  { tool: 'unload_skill', args: () => ({ skill: 'json-tools' }) },
  { tool: 'load_skill', args: () => ({ skill: 'word-count' }) },
  { tool: 'run_word_count_count', args: () => ({ file: 'samples/sample.txt', top: 3 }) },
  { tool: 'unload_skill', args: () => ({ skill: 'word-count' }) },
  {
    tool: 'artifact_cat',
    args: (results) => {
      const ack = results.find((r) => r.tool === 'run_word_count_count')?.text
      const id = ack && /output: (r_[0-9a-f]{16})/.exec(ack)?.[1]
      return id ? { id } : undefined
    },
  },
  {
    tool: 'artifact_cat',
    args: (results) => (conversionId(results) ? { id: conversionId(results) } : undefined),
  },
]

/** A tool result's own text, without the spool footer; JSON strings decoded. */
function payload(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  const body = text
    .replace(/\n\n\[result r_[0-9a-f]{16}[^\]]*\]$/, '')
    .replace(/^\[artifact [^\]]*\]\s*/, '')
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'string' ? value : body
  } catch {
    return body
  }
}

/** The closing answer, from what the tools returned. */
function answer(results: readonly { tool: string; text: string }[]): string {
  const of = (tool: string) => payload(results.find((r) => r.tool === tool)?.text)
  const diff = of('json_diff')?.split('\n').join(', ')
  const scriptOutput = results
    .filter((r) => r.tool === 'artifact_cat')
    .map((r) => payload(r.text) ?? '')
  const topWords = scriptOutput
    .find((t) => t.includes('words:'))
    ?.split('\n')
    .filter((l) => /^\d+ \S+$/.test(l.trim()))
    .map((l) => l.trim().split(' ')[1])
  const parts = [
    `(1) ${of('convert_units') ?? 'unknown: unit-convert was not offered'}`,
    `(2) ${diff ?? 'unknown: json-tools was not offered'}`,
    `(3) ${topWords?.length ? topWords.join(', ') : 'unknown: scripts are off on this host'}`,
  ]
  return `${parts.join(' ')}. Each skill was unloaded after use; the results were re-read by id afterwards.`
}

/**
 * A scripted stand-in for a model, built on the AI SDK's own mock. It plays
 * one plan across all three tiers — a module tool (unit-convert), an isolated
 * tool (json-tools), a sandboxed script (word-count) — loading each skill only
 * while it is needed, then re-reads an earlier result by id. A planned call
 * whose tool is not offered (say, scripts off) is skipped, as a model would.
 */
export function scriptedDemoModel(): MockLanguageModelV3 {
  let next = 0
  return new MockLanguageModelV3({
    provider: 'skillhost-demo',
    modelId: 'scripted',
    doGenerate: async (call) => {
      const results = resultsOf(call)
      const offered = new Set((call.tools ?? []).map((t) => t.name))
      while (next < PLAN.length) {
        const planned = PLAN[next++]!
        const args = offered.has(planned.tool) ? planned.args(results) : undefined
        if (args) return toolCall(planned.tool, args)
      }
      return say(answer(results))
    },
  })
}

/**
 * The demo's model: OpenAI when `OPENAI_API_KEY` is set, else Anthropic when
 * `ANTHROPIC_API_KEY` is, else the scripted model. Providers load lazily.
 */
export async function pickDemoModel(env: NodeJS.ProcessEnv, modelId?: string): Promise<DemoModel> {
  if (env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai')
    const id = modelId ?? 'gpt-4.1-mini'
    return { model: openai(id), label: `OpenAI ${id}`, scripted: false }
  }
  if (env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic')
    const id = modelId ?? 'claude-haiku-4-5'
    return { model: anthropic(id), label: `Anthropic ${id}`, scripted: false }
  }
  return { model: scriptedDemoModel(), label: 'SCRIPTED MODEL (no API key found)', scripted: true }
}
