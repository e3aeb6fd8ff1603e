import { generateText, stepCountIs } from 'ai'
import { describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { type ModelCall, offeredTools, scriptedModel, systemText, toolResults } from './scripted-model.js'
import { makeTierRig } from './tier-rig.js'

const onLinux = process.platform === 'linux'
if (!onLinux) console.warn('\n!!! SKIPPING the AI SDK tier test: scripts need bubblewrap on Linux. !!!\n')

describe.runIf(onLinux)('AI SDK adapter across all three tiers (examples/skills)', () => {
  it('module, isolated and script tools appear the step after their load and leave after unload', async () => {
    const rig = await makeTierRig()
    try {
      const ctx = rig.manager.createTurnContext()
      const skills = createSkillTools({ manager: rig.manager, ctx })
      const calls: ModelCall[] = []
      const step =
        (f: () => ReturnType<Parameters<typeof scriptedModel>[0][number]>) =>
        (c: ModelCall) => {
          calls.push(c)
          return f()
        }
      const model = scriptedModel([
        step(() => [{ tool: 'list_skills' }]),
        step(() => [
          { tool: 'load_skill', args: { skill: 'unit-convert' } },
          { tool: 'load_skill', args: { skill: 'json-tools' } },
          { tool: 'load_skill', args: { skill: 'word-count' } },
        ]),
        step(() => [
          { tool: 'convert_units', args: { value: 1, from: 'km', to: 'm' } },
          { tool: 'json_diff', args: { before: { a: 1 }, after: { a: 2, b: true } } },
          { tool: 'run_word_count_count', args: { file: 'samples/sample.txt' } },
        ]),
        step(() => [
          { tool: 'unload_skill', args: { skill: 'unit-convert' } },
          { tool: 'unload_skill', args: { skill: 'json-tools' } },
          { tool: 'unload_skill', args: { skill: 'word-count' } },
        ]),
        step(() => 'done'),
      ])
      await generateText({ model, tools: skills.tools, prepareStep: skills.prepareStep, prompt: 'go', stopWhen: stepCountIs(8) })
      const [s0, s1, s2, s3, s4] = calls as [ModelCall, ModelCall, ModelCall, ModelCall, ModelCall]
      const tierTools = ['convert_units', 'json_diff', 'json_stats', 'run_word_count_count']
      for (const c of [s0, s1]) for (const t of tierTools) expect(offeredTools(c)).not.toContain(t)
      expect(offeredTools(s2)).toEqual(expect.arrayContaining(tierTools))
      expect(systemText(s2)).toContain('# JSON tools')
      expect(systemText(s2)).toContain('# Word count')

      const results = toolResults(s3)
      const byTool = (name: string) => results.find((r) => r.tool === name)
      expect(byTool('convert_units')).toMatchObject({ type: 'text' })
      expect(byTool('convert_units')?.text).toContain('1 km = 1000 m')
      expect(byTool('json_diff')?.text).toMatch(/^E_SKILL_ISOLATED_THREW/)

      expect(byTool('run_word_count_count')).toEqual({})
      expect(byTool('run_word_count_count')?.text).toMatch(/words: \d+/)

      for (const t of tierTools) expect(offeredTools(s4)).not.toContain(t)
      expect(systemText(s4)).not.toContain('# JSON tools')
      expect(rig.manager.loaded()).toEqual([])
      skills.dispose()
    } finally {
      await rig.cleanup()
    }
  })
})
