import { generateText, stepCountIs } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { Tool } from '../../src/common/tool.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import {
  type ModelCall,
  offeredTools,
  scriptedModel,
  systemText,
  toolResults,
} from '../helpers/scripted-model.js'

const LIFECYCLE = [
  'list_loaded_skills',
  'list_skills',
  'load_skill',
  'refresh_skills',
  'unload_skill',
]
const BODY = '# Greeter\n\nAlways greet the user by name, warmly.'

const greet = new Tool<{ name: string }>({
  name: 'greet',
  description: 'Greets someone by name.',
  inputSchema: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string' } },
  },
  handler: ({ name }) => `Hello, ${name}!`,
})
const explode = new Tool<Record<string, never>>({
  name: 'explode',
  description: 'Always fails.',
  inputSchema: { type: 'object', properties: {} },
  handler: () => {
    throw new Error('cannot open /home/alice/.secrets/token.txt')
  },
})

const managers: SkillManager[] = []
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()))
})

async function setup(channel: 'inline' | 'handle' = 'inline') {
  const source = new InMemorySkillSource({
    skills: [
      {
        name: 'greeter',
        description: 'Greets people by name.',
        body: BODY,
        channel,
        tools: [greet, explode],
      },
      { name: 'other', description: 'Something else.', body: '# Other' },
    ],
  })
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  managers.push(manager)
  const ctx = manager.createTurnContext()
  return { manager, ctx }
}

describe('createSkillTools with the AI SDK', () => {
  it('offers a skill loaded in step N from step N+1, and takes it away after unload', async () => {
    const { manager, ctx } = await setup()
    const skills = createSkillTools({ manager, ctx, system: 'You are a test agent.' })
    const calls: ModelCall[] = []
    const record =
      (f: (c: ModelCall) => ReturnType<Parameters<typeof scriptedModel>[0][number]>) =>
      (c: ModelCall) => {
        calls.push(c)
        return f(c)
      }
    const model = scriptedModel([
      record(() => [{ tool: 'list_skills' }]),
      record(() => [{ tool: 'load_skill', args: { skill: 'greeter' } }]),
      record(() => [{ tool: 'greet', args: { name: 'Ada' } }]),
      record(() => [{ tool: 'unload_skill', args: { skill: 'greeter' } }]),
      record(() => [{ tool: 'greet', args: { name: 'Bob' } }]),
      record(() => 'done'),
    ])

    const result = await generateText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      prompt: 'Greet Ada.',
      stopWhen: stepCountIs(10),
    })
    expect(result.text).toBe('done')
    expect(calls).toHaveLength(6)
    const [s0, s1, s2, s3, s4, s5] = calls as [
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
    ]

    // Step 0 and 1: only the lifecycle tools; no skill body.
    expect(offeredTools(s0)).toEqual(LIFECYCLE)
    expect(systemText(s0)).toContain('You are a test agent.')
    expect(systemText(s0)).not.toContain('Greeter')
    expect(offeredTools(s1)).toEqual(LIFECYCLE)
    const listed = JSON.parse(toolResults(s1)[0]?.text ?? '{}') as {
      skills: { id: string; loaded: boolean }[]
    }
    expect(listed.skills.map((s) => s.id)).toEqual(['greeter', 'other'])

    // Step 2: loaded in step 1, so greet is offered and the body is in the system prompt.
    expect(offeredTools(s2)).toEqual(expect.arrayContaining([...LIFECYCLE, 'greet', 'explode']))
    expect(systemText(s2)).toContain(BODY)
    expect(systemText(s2)).toContain('skill="greeter"')
    const loaded = JSON.parse(toolResults(s2).find((r) => r.tool === 'load_skill')?.text ?? '{}')
    expect(loaded).toMatchObject({
      id: 'greeter',
      channel: 'inline',
      toolsAdded: ['greet', 'explode'],
      body: BODY,
    })

    // Step 3: the skill tool ran.
    const greeted = toolResults(s3).find((r) => r.tool === 'greet')
    expect(greeted?.type).toBe('text')
    expect(greeted?.text).toMatch(/^Hello, Ada!/)
    expect(greeted?.text).toMatch(/\[result r_[0-9a-f]{16} /)
    expect(offeredTools(s3)).toContain('greet')

    // Step 4: unloaded in step 3: tools and body are gone; the earlier result stays in the transcript.
    expect(offeredTools(s4)).not.toContain('greet')
    expect(offeredTools(s4)).not.toContain('explode')
    expect(offeredTools(s4)).toEqual(expect.arrayContaining(LIFECYCLE))
    expect(systemText(s4)).not.toContain(BODY)
    expect(toolResults(s4).find((r) => r.tool === 'unload_skill')?.text).toContain('"toolsRemoved"')
    expect(toolResults(s4).some((r) => r.text.startsWith('Hello, Ada!'))).toBe(true)

    // Step 5: a call to the unloaded tool was refused as a tool error, and did not run.
    const refused = toolResults(s5).find((r) => r.tool === 'greet' && !r.text.includes('Ada'))
    expect(refused?.type).toBe('error-text')
    expect(refused?.text).not.toContain('Hello, Bob')
    expect(manager.projected(ctx)).toEqual([])
    expect(manager.loaded()).toEqual([])
    skills.dispose()
  })

  it('projects a handle body: the outline reaches the model and the readers become callable', async () => {
    const { manager, ctx } = await setup('handle')
    const skills = createSkillTools({ manager, ctx })
    const calls: ModelCall[] = []
    let handleId = ''
    const model = scriptedModel([
      () => [{ tool: 'load_skill', args: { skill: 'greeter' } }],
      (c) => {
        calls.push(c)
        handleId = (JSON.parse(toolResults(c)[0]?.text ?? '{}') as { handle: { id: string } })
          .handle.id
        return [{ tool: 'artifact_cat', args: { id: handleId } }]
      },
      (c) => {
        calls.push(c)
        return 'ok'
      },
    ])
    await generateText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      prompt: 'go',
      stopWhen: stepCountIs(5),
    })
    const [afterLoad, afterCat] = calls as [ModelCall, ModelCall]
    expect(handleId).toMatch(/^r_[0-9a-f]{16}$/)
    expect(systemText(afterLoad)).toContain(handleId)
    expect(systemText(afterLoad)).toContain('channel="handle"')
    expect(systemText(afterLoad)).not.toContain('Always greet the user by name')
    expect(offeredTools(afterLoad)).toContain('artifact_cat')
    expect(toolResults(afterCat).find((r) => r.tool === 'artifact_cat')?.text).toContain(
      'Always greet the user by name',
    )
  })

  it('returns errors as tool errors with the renderError code text, never a host path', async () => {
    const { manager, ctx } = await setup()
    const skills = createSkillTools({ manager, ctx })
    const seen: ModelCall[] = []
    const model = scriptedModel([
      () => [{ tool: 'load_skill', args: { skill: 'nope' } }],
      (c) => {
        seen.push(c)
        return [{ tool: 'load_skill', args: { skill: 'greeter' } }]
      },
      () => [
        { tool: 'explode', args: {} },
        { tool: 'greet', args: { name: 42 } },
      ],
      (c) => {
        seen.push(c)
        return 'ok'
      },
    ])
    await generateText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      prompt: 'go',
      stopWhen: stepCountIs(6),
    })
    const [first, last] = seen as [ModelCall, ModelCall]
    const notFound = toolResults(first).find((r) => r.tool === 'load_skill')
    expect(notFound?.type).toBe('error-text')
    expect(notFound?.text).toMatch(/^E_SKILL_NOT_FOUND: /)
    const exploded = toolResults(last).find((r) => r.tool === 'explode')
    expect(exploded?.type).toBe('error-text')
    expect(exploded?.text).toMatch(/^E_SKILL_TOOL_FAILED: /)
    expect(exploded?.text).not.toContain('/home/alice')
    expect(exploded?.text).not.toMatch(/\bat .*:\d+:\d+/)
    const invalid = toolResults(last).find((r) => r.tool === 'greet')
    expect(invalid?.type).toBe('error-text')
    expect(invalid?.text).toMatch(/^E_TOOL_INVALID_ARGS: /)
  })

  it('an entry held past unload refuses with a code instead of running', async () => {
    const { manager, ctx } = await setup()
    const skills = createSkillTools({ manager, ctx })
    await manager.load('greeter', ctx)
    const held = skills.tools.greet
    expect(skills.activeTools()).toContain('greet')
    await manager.unload('greeter', ctx)
    expect(skills.activeTools()).not.toContain('greet')
    await expect(
      held?.execute?.({ name: 'Ada' }, { toolCallId: 'x', messages: [] }) as Promise<unknown>,
    ).rejects.toThrow(/^E_TOOL_NOT_FOUND: /)
  })

  it('host tools win collisions and dispose() removes what the adapter registered', async () => {
    const { manager, ctx } = await setup()
    const hostGreet = new Tool<{ name: string }>({
      name: 'greet',
      description: 'Host greeting.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
      handler: () => 'host',
    })
    const skills = createSkillTools({ manager, ctx, hostTools: [hostGreet], lifecycleTools: false })
    expect(skills.activeTools()).toEqual(['greet'])
    await expect(manager.load('greeter', ctx)).rejects.toMatchObject({
      code: 'E_SKILL_TOOL_COLLISION',
    })
    skills.dispose()
    skills.dispose()
    expect(ctx.tools.size).toBe(0)
  })
})
