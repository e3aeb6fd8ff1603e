import { simulateReadableStream, stepCountIs, streamText } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

type StreamCall = MockLanguageModelV3['doStreamCalls'][number]
type Part = { type: string; [key: string]: unknown }

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** The AI SDK's mock model, streaming one scripted step per call. */
function streamingModel(steps: readonly (() => Part[])[]): MockLanguageModelV3 {
  let index = 0
  return new MockLanguageModelV3({
    doStream: async () => {
      const step = steps[index++]
      if (!step) throw new Error(`no step ${index - 1}`)
      const parts = step()
      const calls = parts.some((p) => p.type === 'tool-call')
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            ...parts,
            {
              type: 'finish',
              finishReason: calls
                ? { unified: 'tool-calls', raw: 'tool_calls' }
                : { unified: 'stop', raw: 'stop' },
              usage,
            },
          ] as never[],
        }),
      }
    },
  })
}

const call = (id: string, toolName: string, args: Record<string, unknown>): Part => ({
  type: 'tool-call',
  toolCallId: id,
  toolName,
  input: JSON.stringify(args),
})
const text = (t: string): Part[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: t },
  { type: 'text-end', id: 't' },
]
const offered = (c: StreamCall) => (c.tools ?? []).map((t) => t.name).sort()
const system = (c: StreamCall) =>
  c.prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n')

const managers: SkillManager[] = []
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()))
})

describe('createSkillTools with streamText', () => {
  it('a skill loaded in step N is callable in N+1 and gone after unload, while streaming', async () => {
    const greet = new Tool<{ name: string }>({
      name: 'greet',
      description: 'Greets someone by name.',
      inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      handler: ({ name }) => `Hello, ${name}!`,
    })
    const source = new InMemorySkillSource({
      skills: [
        {
          name: 'greeter',
          description: 'Greets.',
          body: '# Greeter\n\nGreet warmly.',
          channel: 'inline',
          tools: [greet],
        },
      ],
    })
    const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
    managers.push(manager)
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx, system: 'base prompt' })
    const model = streamingModel([
      () => [call('c0', 'load_skill', { skill: 'greeter' })],
      () => [call('c1', 'greet', { name: 'Ada' })],
      () => [call('c2', 'unload_skill', { skill: 'greeter' })],
      () => text('done'),
    ])
    const result = streamText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      stopWhen: stepCountIs(6),
      prompt: 'greet Ada',
    })
    expect(await result.text).toBe('done')
    const calls = model.doStreamCalls
    expect(calls).toHaveLength(4)
    expect(offered(calls[0]!)).not.toContain('greet')
    expect(system(calls[0]!)).not.toContain('Greet warmly')
    expect(offered(calls[1]!)).toContain('greet')
    expect(system(calls[1]!)).toContain('Greet warmly')
    expect(offered(calls[3]!)).not.toContain('greet')
    expect(system(calls[3]!)).not.toContain('Greet warmly')
    const steps = await result.steps
    const greetResult = steps[1]!.toolResults.find((r) => r.toolName === 'greet')
    expect(String(greetResult?.output)).toContain('Hello, Ada!')
    skills.dispose()
  })
})
