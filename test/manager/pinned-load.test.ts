import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

const skill = (body: string) => ({ name: 'notes', description: 'Takes notes.', body })

async function setup() {
  const source = new InMemorySkillSource({ skills: [skill('# v1')] })
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  return { source, manager, ctx: manager.createTurnContext() }
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err) => (SkillHostError.isInstance(err) ? err.code : String(err)),
  )

describe('manager.load(id, ctx, { version }): loading a pinned version', () => {
  it('loads exactly the pinned version, and reports it with its channel', async () => {
    const { manager, ctx } = await setup()
    const version = manager.catalog().entries[0]?.version as string
    const result = await manager.load('notes', ctx, { version })
    expect(result.version).toBe(version)
    expect(manager.loadedSkills()).toEqual([
      expect.objectContaining({ id: 'notes', version, channel: 'handle' }),
    ])
    await manager.dispose()
  })

  it('rediscovers once when the catalog is behind the source, then loads the pinned version', async () => {
    const { source, manager, ctx } = await setup()
    // Another process changed the skill; this manager's catalog has not seen it yet.
    const { version } = source.replace(skill('# v2'))
    expect(manager.catalog().entries[0]?.version).not.toBe(version)
    const result = await manager.load('notes', ctx, { version })
    expect(result.version).toBe(version)
    await manager.dispose()
  })

  it('a version the source no longer holds is E_SKILL_VERSION_GONE, naming what it has now', async () => {
    const { source, manager, ctx } = await setup()
    const old = manager.catalog().entries[0]?.version as string
    const { version: now } = source.replace(skill('# v2'))
    const err = await manager.load('notes', ctx, { version: old }).catch((e) => e)
    expect(SkillHostError.is(err, 'E_SKILL_VERSION_GONE')).toBe(true)
    expect(err.status).toBe(410)
    expect(err.data).toEqual({ skill: 'notes', version: old, available: now })
    expect(err.message).toContain('Start a new session')
    expect(manager.loaded()).toEqual([])
    source.remove('notes')
    expect(await codeOf(manager.load('notes', ctx, { version: now }))).toBe('E_SKILL_VERSION_GONE')
    await manager.dispose()
  })

  it('a skill loaded at another version is not silently replaced', async () => {
    const { source, manager, ctx } = await setup()
    await manager.load('notes', ctx)
    const { version } = source.replace(skill('# v2'))
    expect(await codeOf(manager.load('notes', ctx, { version }))).toBe('E_SKILL_ALREADY_LOADED')
    await manager.dispose()
  })
})
