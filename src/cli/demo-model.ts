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

/**
 * A scripted stand-in for a model, built on the AI SDK's own mock: it reads
 * what it was sent (offered tools, earlier results) and plays the demo's
 * plan: list, load unit-convert, convert, unload, re-read the result by id.
 */
export function scriptedDemoModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'skillhost-demo',
    modelId: 'scripted',
    doGenerate: async (call) => {
      const results = resultsOf(call)
      const last = results.at(-1)
      const offered = new Set((call.tools ?? []).map((t) => t.name))
      const converted = results.find((r) => r.tool === 'convert_units')
      switch (last?.tool) {
        case undefined:
          return toolCall('list_skills', {})
        case 'list_skills':
          return toolCall('load_skill', { skill: 'unit-convert' })
        case 'load_skill':
          if (offered.has('convert_units'))
            return toolCall('convert_units', { value: 26.2, from: 'mi', to: 'km' })
          return toolCall('unload_skill', { skill: 'unit-convert' })
        case 'convert_units':
          return toolCall('unload_skill', { skill: 'unit-convert' })
        case 'unload_skill': {
          const id = converted && /\[result (r_[0-9a-f]{16})\b/.exec(converted.text)?.[1]
          if (id && offered.has('artifact_cat')) return toolCall('artifact_cat', { id })
          return say(
            'I could not convert: the unit-convert tool was not offered (module tools need --import-modules).',
          )
        }
        default: {
          const answer = converted?.text.split('\n')[0] ?? 'no result'
          return say(`${answer}. (Re-read by id after the skill was unloaded.)`)
        }
      }
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
