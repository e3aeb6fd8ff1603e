import { rm } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { renderAvailableSkills } from '../../src/manager/render-available-skills.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { writeManySkills, writeSeventeenSkills } from '../helpers/catalog-fixtures.js'
import { rejectsWith } from '../helpers/error-code.js'
import { memorySource } from '../helpers/manager-fixtures.js'

const roots: string[] = []
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
})

const skills = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `skill-${String(i).padStart(3, '0')}`,
    description: `Skill ${i} ${'does things. '.repeat(30)}`,
    body: `# Skill ${i}\n`,
  }))

describe("the manager's catalog block (issue 38)", () => {
  it('the same budget as renderAvailableSkills: window and share from the config, overridable per call', async () => {
    const root = await writeSeventeenSkills()
    roots.push(root)
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => {},
      catalog: { window: 200_000 },
    })
    const out = manager.availableSkills()
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out.described).toBe(17)
    expect(out.text).not.toContain('<location>')
    const rows = manager
      .search({ forModel: true })
      .entries.map((e) => ({ name: e.id, description: e.description }))
    expect(out.text).toBe(renderAvailableSkills(rows, { window: 200_000 }).text)
    const small = manager.availableSkills({ window: 100_000 })
    expect(small.text.length).toBeLessThanOrEqual(4_000)
    expect(small.text).toBe(renderAvailableSkills(rows, { window: 100_000 }).text)
    // Paths only when asked for, for agents that read skills by path.
    const located = manager.availableSkills({ locations: 'path' })
    expect(located.text.match(/<location>\/[^<]*SKILL\.md<\/location>/g)).toHaveLength(17)
  })

  it('thousands of skills: within the window, total and count stated, list_skills named', async () => {
    const root = await writeManySkills(2_000)
    roots.push(root)
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => {},
      catalog: { window: 200_000, pin: ['skill-01999'] },
    })
    const out = manager.availableSkills()
    expect(out.text.length).toBeLessThanOrEqual(8_000)
    expect(out.text).toContain('<more_skills total="2000"')
    expect(out.text).toContain('list_skills with a query')
    expect(out.text.indexOf('<name>skill-01999</name>')).toBe(
      '<available_skills>\n<skill>\n'.length,
    )
  }, 60_000)

  it('loads and unloads never change the bytes; a change of skills renders again, most used first', async () => {
    const source = memorySource(skills(6))
    await using manager = await createSkillManager({
      sources: [source],
      gate: async () => {},
      catalog: { maxTokens: 2_000 },
    })
    const ctx = manager.createTurnContext()
    const first = manager.availableSkills().text
    // Ten turns: each loads a skill and unloads the one the turn before loaded.
    const order = [5, 4, 5, 4, 5, 4, 5, 4, 3, 2]
    for (const [turn, n] of order.entries()) {
      await manager.load(`skill-00${n}`, ctx)
      expect(manager.availableSkills().text).toBe(first)
      if (turn > 0) await manager.unload(`skill-00${order[turn - 1]}`, ctx)
      expect(manager.availableSkills().text).toBe(first)
    }
    // A refresh that finds nothing new keeps the bytes, although use would now rank otherwise.
    await manager.refresh()
    expect(manager.availableSkills().text).toBe(first)
    // The skills change: the block is rendered again, and use in this session ranks it.
    source.add({ name: 'zzz-new', description: 'A new skill.', body: '# New\n' })
    await manager.refresh()
    const second = manager.availableSkills().text
    expect(second).not.toBe(first)
    expect(second).toContain('zzz-new')
    // Most used first (004 and 005 four times, 002 and 003 once), then by name.
    const at = (text: string) => (n: string) => text.indexOf(`<name>${n}</name>`)
    expect(
      ['skill-004', 'skill-005', 'skill-002', 'skill-003', 'skill-000', 'zzz-new'].map(at(second)),
    ).toEqual(
      [
        ...['skill-004', 'skill-005', 'skill-002', 'skill-003', 'skill-000', 'zzz-new'].map(
          at(second),
        ),
      ].sort((a, b) => a - b),
    )
    expect(at(second)('zzz-new')).toBeGreaterThan(0)
    // The first rendering, before any use, was by name.
    expect(at(first)('skill-000')).toBeLessThan(at(first)('skill-004'))
  })

  it('hide: not in the block nor in list_skills (with a query either), still loadable by id', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource(skills(4))],
      gate: async () => {},
      catalog: { hide: ['nothing-*', 'skill-002'] },
    })
    const ctx = manager.createTurnContext()
    expect(manager.availableSkills().text).not.toContain('skill-002')
    expect(manager.availableSkills().total).toBe(3)
    const [list, , , load] = forgeSkillTools(manager)
    const listed = JSON.parse(String(await list!.execute({}, ctx))) as {
      skills: { id: string }[]
      total: number
    }
    expect(listed.skills.map((s) => s.id)).not.toContain('skill-002')
    expect(listed.total).toBe(3)
    expect(String(await list!.execute({ query: 'skill-002' }, ctx))).not.toContain('"skill-002"')
    const loaded = JSON.parse(String(await load!.execute({ skill: 'skill-002' }, ctx)))
    expect(loaded.id).toBe('skill-002')
    // The host's own view still has it.
    expect(manager.search().entries.map((e) => e.id)).toContain('skill-002')
  })

  it('hide holds for a shadowed copy too: a query for it finds no ref', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource(skills(2), 'first'), memorySource(skills(3), 'second')],
      gate: async () => {},
      catalog: { hide: ['skill-001'] },
    })
    const ctx = manager.createTurnContext()
    const [list] = forgeSkillTools(manager)
    const text = String(await list!.execute({ query: 'skill-001' }, ctx))
    expect(JSON.parse(text).skills).toEqual([])
    // The host sees both copies; without hide the model would see both too.
    expect(manager.search({ query: 'skill-001' }).entries).toHaveLength(2)
    await using open = await createSkillManager({
      sources: [memorySource(skills(2), 'first'), memorySource(skills(3), 'second')],
      gate: async () => {},
    })
    const shown = String(await forgeSkillTools(open)[0]!.execute({ query: 'skill-001' }, ctx))
    expect(JSON.parse(shown).skills).toHaveLength(2)
    expect(manager.availableSkills().text).not.toContain('skill-001')
  })

  it.each([
    [{ window: 0 }],
    [{ share: 0.01 }],
    [{ window: 1000, share: 3 }],
    [{ maxTokens: 1.5 }],
    [{ pin: 'x' as unknown as string[] }],
    [{ hide: [''] }],
    [{ locations: 'file' as 'path' }],
  ])('refuses catalog %j with E_INVALID_SKILLS_CONFIG', async (catalog) => {
    await rejectsWith(
      createSkillManager({ sources: [memorySource(skills(1))], gate: async () => {}, catalog }),
      'E_INVALID_SKILLS_CONFIG',
    )
  })

  it('refuses a bad per-call budget', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource(skills(1))],
      gate: async () => {},
    })
    expect(() => manager.availableSkills({ window: -1 })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
    expect(() => manager.availableSkills({ locations: 'x' as 'path' })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
  })
})
