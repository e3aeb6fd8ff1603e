import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillSource } from '../../src/sources/types.js'
import { echoTool, memorySource, reportSkill } from '../helpers/manager-fixtures.js'

describe('catalog', () => {
  it('lets an earlier source win an id collision and keeps the loser visible as shadowed', async () => {
    const first = memorySource([reportSkill({ description: 'first' })], 'first')
    const second = memorySource([reportSkill({ description: 'second' })], 'second')
    await using manager = await createSkillManager({
      sources: [first, second],
      gate: async () => {},
    })
    const { entries } = manager.catalog()
    expect(entries.map((e) => [e.source, e.description, e.shadowedBy])).toEqual([
      ['first', 'first', undefined],
      ['second', 'second', 'first'],
    ])
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('reports', ctx)
    expect(loaded.handle?.text).toBeDefined()
    expect(manager.catalog().entries[0]).toMatchObject({ loaded: true })
    expect(manager.catalog().entries[1]).toMatchObject({ loaded: false, shadowedBy: 'first' })
  })

  it('reports a source that throws during discovery while the others keep serving', async () => {
    const broken: SkillSource = {
      id: 'broken',
      // biome-ignore lint/correctness/useYield: a source that fails before yielding anything
      async *discover() {
        throw new Error('index corrupt at /home/alice/.skills')
      },
      descriptor: async () => Promise.reject(new Error('x')),
      read: async () => Promise.reject(new Error('x')),
      stat: async () => Promise.reject(new Error('x')),
    }
    await using manager = await createSkillManager({
      sources: [broken, memorySource([reportSkill()])],
      gate: async () => {},
    })
    const catalog = manager.catalog()
    expect(catalog.entries.map((e) => e.id)).toEqual(['reports'])
    expect(catalog.sourceErrors).toHaveLength(1)
    expect(catalog.sourceErrors[0]).toMatchObject({ source: 'broken', code: 'E_INTERNAL' })
    expect(JSON.stringify(catalog.sourceErrors)).not.toContain('/home/alice')
    await manager.load('reports', manager.createTurnContext())
  })

  it('searches id, name and description, paged', async () => {
    const skills = Array.from({ length: 30 }, (_, i) =>
      reportSkill({
        name: `skill-${i}`,
        description: i % 3 === 0 ? 'Parses PDF files.' : 'Other.',
        tools: [],
      }),
    )
    await using manager = await createSkillManager({
      sources: [memorySource(skills)],
      gate: async () => {},
    })
    expect(manager.search({ query: 'pdf' }).total).toBe(10)
    const page = manager.search({ query: 'PDF', offset: 8, limit: 5 })
    expect(page.entries.map((e) => e.id)).toEqual(['skill-24', 'skill-27'])
    expect(manager.search({ query: 'skill-1' }).total).toBe(11)
  })
})

describe('refresh', () => {
  it('refresh() updates catalog knowledge only: updateAvailable, never a swap', async () => {
    const source = memorySource([reportSkill()])
    await using manager = await createSkillManager({ sources: [source], gate: async () => {} })
    const ctx = manager.createTurnContext()
    const { version } = await manager.load('reports', ctx)
    source.replace(reportSkill({ body: '# Reports v2\n' }))
    const result = await manager.refresh()
    expect(result.updatesAvailable).toEqual(['reports'])
    const entry = manager.catalog().entries[0]!
    expect(entry).toMatchObject({ loaded: true, loadedVersion: version, updateAvailable: true })
    expect(ctx.retrievables.all()[0]?.retrievable.provenance.skillVersion).toBe(version)
  })

  it('autoRefresh marks updateAvailable and never swaps', async () => {
    const source = memorySource([reportSkill()])
    await using manager = await createSkillManager({
      sources: [source],
      gate: async () => {},
      autoRefresh: { intervalMs: 100 },
    })
    const ctx = manager.createTurnContext()
    const { version } = await manager.load('reports', ctx)
    const before = ctx.tools.get('echo')
    source.replace(reportSkill({ body: '# v2\n' }))
    await expect.poll(() => manager.catalog().entries[0]?.updateAvailable).toBe(true)
    expect(ctx.tools.get('echo')).toBe(before)
    expect(manager.catalog().entries[0]?.loadedVersion).toBe(version)
  })

  it('refreshAndProject prepares the new version fully, then swaps it in', async () => {
    const source = memorySource([reportSkill()])
    await using manager = await createSkillManager({
      sources: [source],
      gate: async () => {},
      defaultChannel: 'inline',
    })
    const ctx = manager.createTurnContext()
    const { version: v1 } = await manager.load('reports', ctx)
    const oldEcho = ctx.tools.get('echo')!
    source.replace(
      reportSkill({ body: '# Reports v2\n', tools: [echoTool(), echoTool('summarize')] }),
    )
    const result = await manager.refreshAndProject(ctx)
    expect(result.swapped).toHaveLength(1)
    expect(result.swapped[0]).toMatchObject({ id: 'reports', from: v1 })
    expect(ctx.tools.has('summarize')).toBe(true)
    expect(ctx.tools.get('echo')).not.toBe(oldEcho)
    expect(ctx.retrievables.all().map((p) => p.text)).toEqual(['# Reports v2\n'])
    const err = await oldEcho.execute({ text: 'x' }, ctx).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_SKILL_NOT_LOADED')).toBe(true)
  })

  it('a failed prepare leaves the old version loaded and callable', async () => {
    const source = memorySource([
      reportSkill({ name: 'other', tools: [echoTool('taken')] }),
      reportSkill(),
    ])
    await using manager = await createSkillManager({ sources: [source], gate: async () => {} })
    const ctx = manager.createTurnContext()
    await manager.load('other', ctx)
    const { version } = await manager.load('reports', ctx)
    // v2 claims a name another loaded skill owns: its prepare must fail.
    source.replace(reportSkill({ tools: [echoTool(), echoTool('taken')] }))
    const result = await manager.refreshAndProject(ctx, 'reports')
    expect(result.swapped).toEqual([])
    expect(result.failed).toEqual([
      expect.objectContaining({ id: 'reports', code: 'E_SKILL_TOOL_COLLISION' }),
    ])
    expect(manager.catalog().entries.find((e) => e.id === 'reports')).toMatchObject({
      loadedVersion: version,
      updateAvailable: true,
    })
    expect(String(await ctx.tools.get('echo')!.execute({ text: 'still here' }, ctx))).toContain(
      'still here',
    )
  })
})
