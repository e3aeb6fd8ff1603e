import { MockLanguageModelV3 } from 'ai/test'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>
/** The options the AI SDK passed to the mock for one step. */
export type ModelCall = MockLanguageModelV3['doGenerateCalls'][number]
/** A tool call the scripted step makes: name and JSON arguments. */
export interface ScriptedCall {
  readonly tool: string
  readonly args?: Record<string, unknown>
}
/** One scripted step: tool calls, or final text. It may inspect what the model was sent. */
export type ScriptedStep = (call: ModelCall) => readonly ScriptedCall[] | string

/** Makes steps that answer as told and record, in `calls`, each call they answered, in order. */
export function recordingStep(calls: ModelCall[]): (out: ReturnType<ScriptedStep>) => ScriptedStep {
  return (out) => (call) => {
    calls.push(call)
    return out
  }
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/**
 * The AI SDK's own mock language model, answering each step from `steps` in
 * order. It records every call's `tools` and `prompt` in `doGenerateCalls`.
 */
export function scriptedModel(steps: readonly ScriptedStep[]): MockLanguageModelV3 {
  let index = 0
  return new MockLanguageModelV3({
    doGenerate: async (call): Promise<GenerateResult> => {
      const step = steps[index]
      index += 1
      if (!step) throw new Error(`the script has no step ${index - 1}`)
      const out = step(call)
      if (typeof out === 'string') {
        return {
          content: [{ type: 'text', text: out }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        }
      }
      return {
        content: out.map((c, i) => ({
          type: 'tool-call' as const,
          toolCallId: `call_${index - 1}_${i}`,
          toolName: c.tool,
          input: JSON.stringify(c.args ?? {}),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }
    },
  })
}

/** Names of the function tools offered in one call. */
export function offeredTools(call: ModelCall): string[] {
  return (call.tools ?? []).map((t) => t.name).sort()
}

/** The system prompt text of one call. */
export function systemText(call: ModelCall): string {
  return call.prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n')
}

/** Every tool result sent in one call's prompt, by tool name, as text. */
export function toolResults(call: ModelCall): { tool: string; type: string; text: string }[] {
  const out: { tool: string; type: string; text: string }[] = []
  for (const message of call.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const o = part.output
      const text =
        'value' in o ? (typeof o.value === 'string' ? o.value : JSON.stringify(o.value)) : ''
      out.push({ tool: part.toolName, type: o.type, text })
    }
  }
  return out
}
