import { describe, expect, it } from 'vitest'
import { renderError, SkillHostError } from '../../src/common/errors.js'
import { deny } from '../../src/common/gate.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { memorySource, recordingGate, reportSkill } from '../helpers/manager-fixtures.js'

async function setup(options: Parameters<typeof forgeSkillTools>[1] = {}, gate = recordingGate()) {
  const skills = Array.from({ length: 7 }, (_, i) =>
    reportSkill({ name: `skill-${i}`, description: `Numbered skill ${i}.`, tools: [] }),
  )
  skills.push(reportSkill())
  const manager = await createSkillManager({ sources: [memorySource(skills)], gate })
  const tools = forgeSkillTools(manager, options)
  const ctx = manager.createTurnContext()
  for (const t of tools) ctx.tools.register(t)
  const run = async (name: string, args: unknown = {}) =>
    JSON.parse(String(await ctx.tools.get(name)!.execute(args, ctx)))
  return { manager, tools, ctx, run, gate }
}

describe('the five lifecycle tools', () => {
  it('are named as the reference fixes them', async () => {
    const { manager, tools } = await setup()
    expect(tools.map((t) => t.name)).toEqual([
      'list_skills',
      'list_loaded_skills',
      'refresh_skills',
      'load_skill',
      'unload_skill',
    ])
    for (const t of tools) expect(t.jsonSchema).toMatchObject({ type: 'object' })
    await manager.dispose()
  })

  it('list_skills filters, pages with a cursor and never shows host locations', async () => {
    const { manager, run } = await setup()
    const page1 = await run('list_skills', { limit: 3 })
    expect(page1.total).toBe(8)
    expect(page1.skills).toHaveLength(3)
    expect(page1.nextCursor).toBe('o:3')
    const page2 = await run('list_skills', { limit: 3, cursor: page1.nextCursor })
    expect(page2.skills[0].id).toBe('skill-3')
    const last = await run('list_skills', { limit: 50, cursor: 'o:6' })
    expect(last.nextCursor).toBeUndefined()
    const q = await run('list_skills', { query: 'REPORTS' })
    expect(q.skills.map((s: { id: string }) => s.id)).toEqual(['reports'])
    expect(JSON.stringify(page1)).not.toContain('location')
    expect(page1.unsafe).toEqual([])
    await expect(run('list_skills', { cursor: '../../etc' })).rejects.toSatisfy((e) =>
      SkillHostError.is(e, 'E_TOOL_INVALID_ARGS'),
    )
    await expect(run('list_skills', { limit: 0 })).rejects.toSatisfy((e) =>
      SkillHostError.is(e, 'E_TOOL_INVALID_ARGS'),
    )
    await manager.dispose()
  })

  it('load_skill, list_loaded_skills and unload_skill report what changed', async () => {
    const { manager, run, ctx } = await setup()
    const loaded = await run('load_skill', { skill: 'reports' })
    expect(loaded).toMatchObject({ id: 'reports', channel: 'handle', toolsAdded: ['echo'] })
    expect(loaded.handle.id).toMatch(/^r_/)
    expect(await run('list_loaded_skills')).toEqual({
      projected: ['reports'],
      initialized: ['reports'],
    })
    const other = manager.createTurnContext()
    expect(manager.projected(other)).toEqual([])
    expect(await run('unload_skill', { skill: 'reports' })).toEqual({
      id: 'reports',
      toolsRemoved: ['echo'],
    })
    expect(ctx.tools.has('echo')).toBe(false)
    await expect(run('unload_skill', { skill: 'reports' })).rejects.toSatisfy((e) =>
      SkillHostError.is(e, 'E_SKILL_NOT_LOADED'),
    )
    await expect(run('load_skill', {})).rejects.toSatisfy((e) =>
      SkillHostError.is(e, 'E_TOOL_INVALID_ARGS'),
    )
    await manager.dispose()
  })

  it('refresh_skills swaps a changed loaded skill in the current context', async () => {
    const source = memorySource([reportSkill()])
    const manager = await createSkillManager({ sources: [source], gate: async () => {} })
    const [, , refresh, load] = forgeSkillTools(manager)
    const ctx = manager.createTurnContext()
    await load!.execute({ skill: 'reports' }, ctx)
    source.replace(reportSkill({ description: 'Writes better reports.' }))
    const out = JSON.parse(String(await refresh!.execute({ skill: 'reports' }, ctx)))
    expect(out.swapped).toHaveLength(1)
    expect(out.failed).toEqual([])
    await manager.dispose()
  })

  it('are gated by the manager gate, or by the override; a refusal and an unavailable gate differ', async () => {
    const gate = recordingGate()
    const { manager, run } = await setup({}, gate)
    await run('list_skills')
    expect(gate.calls).toEqual(['list_skills'])
    await manager.dispose()

    const refusing = await setup({ gate: async () => Promise.reject(deny('no skills for you')) })
    const refused = await refusing.run('load_skill', { skill: 'reports' }).catch((e: unknown) => e)
    expect(SkillHostError.is(refused, 'E_TOOL_DENIED')).toBe(true)
    expect(renderError(refused)).toContain('no skills for you')
    expect(refusing.manager.loaded()).toEqual([])
    expect(refusing.gate.calls).toEqual([])
    await refusing.manager.dispose()

    const broken = await setup({
      gate: async () => {
        throw new Error('policy service down')
      },
    })
    const unavailable = await broken
      .run('load_skill', { skill: 'reports' })
      .catch((e: unknown) => e)
    expect(SkillHostError.is(unavailable, 'E_TOOL_GATE_UNAVAILABLE')).toBe(true)
    expect(renderError(unavailable)).not.toContain('policy service down')
    expect(broken.manager.loaded()).toEqual([])
    await broken.manager.dispose()
  })
})
