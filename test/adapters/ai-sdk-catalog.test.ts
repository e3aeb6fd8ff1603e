import { rm } from 'node:fs/promises'
import { generateText, stepCountIs } from 'ai'
import { afterAll, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { writeManySkills, writeSeventeenSkills } from '../helpers/catalog-fixtures.js'
import {
  type ModelCall,
  type ScriptedStep,
  scriptedModel,
  systemText,
} from '../helpers/scripted-model.js'

const roots: string[] = []
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
})

async function managerOver(root: Promise<string>) {
  const dir = await root
  roots.push(dir)
  return createSkillManager({
    sources: [new FileSystemSkillSource({ roots: dir })],
    gate: async () => {},
    defaultChannel: 'inline',
  })
}

const BASE = 'You are a careful assistant.'

describe('AI SDK catalog within the model window (issue 38)', () => {
  it("the host passes its model's window: the manager's block, within window × share × 4", async () => {
    await using manager = await managerOver(writeSeventeenSkills())
    using st = createSkillTools({
      manager,
      ctx: manager.createTurnContext(),
      system: BASE,
      catalog: { window: 200_000 },
    })
    const block = manager.availableSkills({ window: 200_000 }).text
    expect(block.length).toBeLessThanOrEqual(8_000)
    expect(block.match(/<name>/g)).toHaveLength(17)
    expect(st.system()).toBe(`${BASE}\n\n${block}`)
  })

  it('thousands of skills: within the window, counted, pointing to list_skills; twice the share shows as many', async () => {
    await using manager = await managerOver(writeManySkills(1_500))
    const ctx = manager.createTurnContext()
    using one = createSkillTools({ manager, ctx, catalog: { window: 128_000 } })
    using two = createSkillTools({
      manager,
      ctx,
      catalog: { window: 128_000, share: 0.02 },
      lifecycleTools: false,
    })
    expect(one.system().length).toBeLessThanOrEqual(5_120)
    expect(one.system()).toContain('<more_skills total="1500"')
    expect(one.system()).toContain('list_skills with a query')
    expect(two.system().length).toBeLessThanOrEqual(10_240)
    expect(two.system().length).toBeGreaterThan(5_120)
  }, 60_000)

  it('ten turns of loads and unloads: the catalog bytes never change and come before loaded skills', async () => {
    await using manager = await managerOver(writeSeventeenSkills())
    const ctx = manager.createTurnContext()
    using st = createSkillTools({ manager, ctx, system: BASE, catalog: { window: 200_000 } })
    const prefix = `${BASE}\n\n${manager.availableSkills({ window: 200_000 }).text}`
    const ids = ['pdf', 'docx', 'word-count', 'xlsx', 'json-tools']
    const systems: string[] = []
    const recorded =
      (step: ScriptedStep): ScriptedStep =>
      (c: ModelCall) => {
        systems.push(systemText(c))
        return step(c)
      }
    for (let turn = 0; turn < 10; turn++) {
      const load = ids[turn % ids.length]!
      const unload = turn > 0 ? ids[(turn - 1) % ids.length] : undefined
      const model = scriptedModel([
        recorded(() => [{ tool: 'load_skill', args: { skill: load } }]),
        recorded(() => (unload ? [{ tool: 'unload_skill', args: { skill: unload } }] : 'ok')),
        ...(unload ? [recorded(() => 'done')] : []),
      ])
      await generateText({
        model,
        tools: st.tools,
        prepareStep: st.prepareStep,
        stopWhen: stepCountIs(5),
        prompt: `turn ${turn}`,
      })
      expect(manager.loaded()).toEqual([load])
    }
    expect(systems.length).toBe(29)
    for (const system of systems) expect(system.startsWith(prefix)).toBe(true)
    // Loaded skills did reach the prompt, after the catalog.
    expect(
      systems.filter((s) => s.length > prefix.length && s.includes('<loaded_skills>')).length,
    ).toBeGreaterThan(10)
  }, 60_000)

  it("catalog: true takes the manager's setting, but never a host path", async () => {
    const dir = await writeSeventeenSkills()
    roots.push(dir)
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: dir })],
      gate: async () => {},
      catalog: { window: 100_000, locations: 'path' },
    })
    using st = createSkillTools({ manager, ctx: manager.createTurnContext(), catalog: true })
    expect(st.system().length).toBeLessThanOrEqual(4_000)
    expect(st.system()).not.toContain('<location>')
    expect(st.system()).not.toContain(dir)
    // The manager itself gives paths to a host that asks for them.
    expect(manager.availableSkills().text).toContain('<location>')
  })

  it('a bad budget fails at once', async () => {
    await using manager = await managerOver(writeSeventeenSkills())
    for (const catalog of [{ window: 0 }, { share: 0.5 }, { window: 1000, share: 2 }])
      expect(() =>
        createSkillTools({ manager, ctx: manager.createTurnContext(), catalog }),
      ).toThrow(expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }))
  })
})
