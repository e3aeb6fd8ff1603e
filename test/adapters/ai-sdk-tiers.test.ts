import { generateText, stepCountIs } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import {
  type ModelCall,
  offeredTools,
  type ScriptedStep,
  scriptedModel,
  systemText,
  toolResults,
} from '../helpers/scripted-model.js'
import { makeTierRig } from '../helpers/tier-rig.js'

const onLinux = process.platform === 'linux'
if (!onLinux)
  console.warn('\n!!! SKIPPING the AI SDK tier tests: scripts need bubblewrap on Linux. !!!\n')

let rig: Awaited<ReturnType<typeof makeTierRig>>
beforeAll(async () => {
  if (onLinux) rig = await makeTierRig()
})
afterAll(async () => {
  await rig?.cleanup()
})

/** Runs one scripted conversation; returns what the model was sent at every step. */
async function converse(script: readonly ScriptedStep[]): Promise<ModelCall[]> {
  const ctx = rig.manager.createTurnContext()
  const skills = createSkillTools({ manager: rig.manager, ctx })
  const calls: ModelCall[] = []
  const model = scriptedModel(
    script.map((f) => (c: ModelCall) => {
      calls.push(c)
      return f(c)
    }),
  )
  await generateText({
    model,
    tools: skills.tools,
    prepareStep: skills.prepareStep,
    prompt: 'go',
    stopWhen: stepCountIs(8),
  })
  skills.dispose()
  expect(rig.manager.projected(ctx)).toEqual([])
  return calls
}

const lifecycle =
  (tool: 'load_skill' | 'unload_skill', skills: string[]) => (): ReturnType<ScriptedStep> =>
    skills.map((skill) => ({ tool, args: { skill } }))

describe.runIf(onLinux)('AI SDK adapter across the tiers (examples/skills)', () => {
  it('module and script tools appear the step after their load and leave after unload', async () => {
    const tierTools = ['convert_units', 'run_word_count_count']
    const calls = await converse([
      () => [{ tool: 'list_skills' }],
      lifecycle('load_skill', ['unit-convert', 'word-count']),
      () => [
        { tool: 'convert_units', args: { value: 1, from: 'km', to: 'm' } },
        // The runner's cwd is the scratch dir, so the skill's files are named by their sandbox path.
        { tool: 'run_word_count_count', args: { file: '/skill/samples/sample.txt', top: 2 } },
      ],
      lifecycle('unload_skill', ['unit-convert', 'word-count']),
      (c) => {
        // The script's output was spooled; read it by id after the skill is gone.
        const ran = toolResults(c).find((r) => r.tool === 'run_word_count_count')?.text ?? ''
        return [
          {
            tool: 'artifact_cat',
            args: { id: /output: (r_[0-9a-f]{16})/.exec(ran)?.[1] ?? 'missing' },
          },
        ]
      },
      () => 'done',
    ])
    const [s0, s1, s2, s3, s4, s5] = calls as [
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
      ModelCall,
    ]
    for (const c of [s0, s1]) for (const t of tierTools) expect(offeredTools(c)).not.toContain(t)
    expect(offeredTools(s2)).toEqual(expect.arrayContaining(tierTools))
    expect(systemText(s2)).toContain('# Word count')
    expect(systemText(s2)).toContain('# Unit convert')
    // The load result says what each script tool runs with, as the sandbox sees it.
    const loads = toolResults(s2)
      .filter((r) => r.tool === 'load_skill')
      .map((r) => JSON.parse(r.text ?? '{}'))
    expect(loads.find((l) => l.id === 'word-count')?.interpreters).toEqual([
      {
        tool: 'run_word_count_count',
        name: 'sh',
        program: expect.stringMatching(/^(\/usr)?\/bin\/sh$/),
      },
    ])
    expect(loads.find((l) => l.id === 'unit-convert')?.interpreters).toBeUndefined()

    const results = toolResults(s3)
    const byTool = (name: string) => results.find((r) => r.tool === name)
    expect(byTool('convert_units')?.type).toBe('text')
    expect(byTool('convert_units')?.text).toContain('1 km = 1000 m')
    expect(byTool('run_word_count_count')?.type).toBe('text')
    expect(byTool('run_word_count_count')?.text).toMatch(/exit code 0.*output: r_[0-9a-f]{16}/)

    for (const t of tierTools) expect(offeredTools(s4)).not.toContain(t)
    expect(systemText(s4)).not.toContain('# Word count')
    const output = toolResults(s5).find((r) => r.tool === 'artifact_cat')
    expect(output?.type).toBe('text')
    expect(output?.text).toMatch(/words: \d+/)
    expect(output?.text).not.toContain('/tmp/')
  })

  it('isolated tools (json-tools) are callable the step after load and gone after unload', async () => {
    const calls = await converse([
      lifecycle('load_skill', ['json-tools']),
      () => [{ tool: 'json_diff', args: { before: { a: 1 }, after: { a: 2, b: true } } }],
      lifecycle('unload_skill', ['json-tools']),
      () => 'done',
    ])
    const [s0, s1, s2, s3] = calls as [ModelCall, ModelCall, ModelCall, ModelCall]
    expect(offeredTools(s0)).not.toContain('json_diff')
    expect(offeredTools(s1)).toEqual(expect.arrayContaining(['json_diff', 'json_stats']))
    expect(systemText(s1)).toContain('# JSON tools')
    const diff = toolResults(s2).find((r) => r.tool === 'json_diff')
    expect(diff?.text).not.toMatch(/^E_/)
    expect(diff?.type).toBe('text')
    expect(diff?.text).toContain('+ /b: true')
    expect(offeredTools(s3)).not.toContain('json_diff')
  })
})
