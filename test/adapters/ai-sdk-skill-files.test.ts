import { generateText, stepCountIs } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import {
  type ModelCall,
  offeredTools,
  recordingStep,
  scriptedModel,
  toolResults,
} from '../helpers/scripted-model.js'

const FORMS = '# Forms\n\nField A: the name.\nField B: the date.\n'
const managers: SkillManager[] = []
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()))
})

describe('read_skill_file through the AI SDK (MockLanguageModel)', () => {
  it('is offered the step after load_skill, reads the skill’s files, and leaves with unload', async () => {
    const source = new InMemorySkillSource({
      skills: [
        {
          name: 'pdf',
          description: 'Fill PDF forms.',
          body: '# PDF\n\nRead forms.md before filling.',
          files: { 'forms.md': FORMS },
        },
      ],
    })
    const manager = await createSkillManager({
      sources: [source],
      gate: async () => undefined,
      defaultChannel: 'auto',
    })
    managers.push(manager)
    const ctx = manager.createTurnContext()
    const skills = createSkillTools({ manager, ctx })
    const calls: ModelCall[] = []
    const step = recordingStep(calls)
    const model = scriptedModel([
      step([{ tool: 'load_skill', args: { skill: 'pdf' } }]),
      step([
        {
          tool: 'read_skill_file',
          args: { skill: 'pdf', path: 'forms.md', grep: { pattern: 'Field B' } },
        },
      ]),
      step([{ tool: 'unload_skill', args: { skill: 'pdf' } }]),
      step([{ tool: 'read_skill_file', args: { skill: 'pdf', path: 'forms.md' } }]),
      step('done'),
    ])
    const result = await generateText({
      model,
      tools: skills.tools,
      prepareStep: skills.prepareStep,
      prompt: 'Fill the form.',
      stopWhen: stepCountIs(8),
    })
    expect(result.text).toBe('done')
    const [s0, s1, s2, s3, s4] = calls as [ModelCall, ModelCall, ModelCall, ModelCall, ModelCall]
    expect(offeredTools(s0)).not.toContain('read_skill_file')
    // Loaded in step 0 (auto: a small body comes inline, with the file list).
    const loaded = JSON.parse(toolResults(s1).find((r) => r.tool === 'load_skill')?.text ?? '{}')
    expect(loaded).toMatchObject({
      channel: 'inline',
      files: [{ path: 'forms.md', size: FORMS.length }],
      filesTotal: 1,
    })
    expect(offeredTools(s1)).toContain('read_skill_file')
    const read = toolResults(s2).find((r) => r.tool === 'read_skill_file')
    expect(read?.type).toBe('text')
    expect(read?.text).toContain('4:Field B: the date.')
    // Unloaded in step 2: no longer offered, so the SDK refuses the call in step 3.
    expect(offeredTools(s3)).not.toContain('read_skill_file')
    const refused = toolResults(s4)
      .filter((r) => r.tool === 'read_skill_file')
      .at(-1)
    expect(refused?.type).toBe('error-text')
    expect(refused?.text).not.toContain('Field A')
    // The result read before unload is still in the transcript.
    expect(toolResults(s4).some((r) => r.text.includes('4:Field B: the date.'))).toBe(true)
    skills.dispose()
  })
})
