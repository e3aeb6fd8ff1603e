import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { Tool } from '../../src/common/tool.js'
import type { TurnContext } from '../../src/common/turn-context.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillDescriptor, SkillRef, SkillSource } from '../../src/sources/types.js'
import { codeOf } from '../helpers/error-code.js'
import { echoTool, memorySource, reportSkill } from '../helpers/manager-fixtures.js'

/** Nothing of a skill is left in the context or the manager. */
function expectClean(
  manager: { loaded(): readonly string[]; projected(c: TurnContext): readonly string[] },
  ctx: TurnContext,
  hostTools: string[] = [],
) {
  expect(manager.loaded()).toEqual([])
  expect(manager.projected(ctx)).toEqual([])
  expect(ctx.tools.names().filter((n) => !n.startsWith('artifact_'))).toEqual(hostTools)
  expect(ctx.retrievables.size).toBe(0)
}

/** A source that lies: it wraps a real one and tampers with descriptors. */
function lyingSource(
  inner: SkillSource,
  tamper: (d: SkillDescriptor) => SkillDescriptor,
): SkillSource {
  return {
    id: inner.id,
    discover: (o) => inner.discover(o),
    descriptor: async (ref: SkillRef, o) => tamper(await inner.descriptor(ref, o)),
    read: (ref, path, o) => inner.read(ref, path, o),
    stat: (ref, path) => inner.stat(ref, path),
  }
}

describe('load', () => {
  it('fails with E_SKILL_NOT_FOUND for an unknown id and E_SKILL_ALREADY_LOADED for a second load', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    expect(await codeOf(manager.load('nope', ctx))).toBe('E_SKILL_NOT_FOUND')
    await manager.load('reports', ctx)
    expect(await codeOf(manager.load('reports', ctx))).toBe('E_SKILL_ALREADY_LOADED')
  })

  it('rejects a descriptor whose id or version does not match the ref, leaving nothing behind', async () => {
    for (const tamper of [
      (d: SkillDescriptor) => ({ ...d, version: 'forged' }),
      (d: SkillDescriptor) => ({ ...d, id: 'other' }),
    ]) {
      await using manager = await createSkillManager({
        sources: [lyingSource(memorySource([reportSkill()]), tamper)],
        gate: async () => {},
      })
      const ctx = manager.createTurnContext()
      expect(await codeOf(manager.load('reports', ctx))).toBe('E_SKILL_MANIFEST_INVALID')
      expectClean(manager, ctx)
    }
  })

  it('preflights every name: provider-safe pattern, duplicates, host tools, reserved readers, other skills', async () => {
    const cases: [Tool[], string, string[]][] = [
      [[echoTool('has space')], 'E_SKILL_MANIFEST_INVALID', []],
      [[echoTool('x'.repeat(65))], 'E_SKILL_MANIFEST_INVALID', []],
      [[echoTool('dup'), echoTool('dup')], 'E_SKILL_TOOL_DUPLICATE', []],
      [[echoTool('host_search')], 'E_SKILL_TOOL_COLLISION', ['host_search']],
      [[echoTool('artifact_cat')], 'E_SKILL_TOOL_COLLISION', []],
      [[echoTool('artifact_md_section')], 'E_SKILL_TOOL_COLLISION', []],
      [[echoTool('load_skill')], 'E_SKILL_TOOL_COLLISION', []],
      [[echoTool('ok_one'), echoTool('taken')], 'E_SKILL_TOOL_COLLISION', []],
    ]
    for (const [tools, code, host] of cases) {
      const other = reportSkill({ name: 'other', tools: [echoTool('taken')] })
      await using manager = await createSkillManager({
        sources: [memorySource([reportSkill({ tools }), other])],
        gate: async () => {},
      })
      const otherCtx = manager.createTurnContext()
      await manager.load('other', otherCtx)
      const ctx = manager.createTurnContext()
      for (const name of host) ctx.tools.register(echoTool(name))
      expect(await codeOf(manager.load('reports', ctx))).toBe(code)
      // Atomic: no tool registered, nothing projected, no claim left behind.
      expect(manager.loaded()).toEqual(['other'])
      expect(ctx.tools.names().filter((n) => !n.startsWith('artifact_'))).toEqual(host)
      expect(ctx.retrievables.size).toBe(0)
      await manager.unload('other', otherCtx)
      // The failed skill's names were never claimed: a fixed skill could take them now.
      expect(manager.loaded()).toEqual([])
    }
  })

  it('a source failing to read the body leaves nothing registered, reserved or projected', async () => {
    const inner = memorySource([reportSkill()])
    const source: SkillSource = {
      ...lyingSource(inner, (d) => d),
      read: async () => Promise.reject(new Error('disk gone at /var/x')),
    }
    await using manager = await createSkillManager({ sources: [source], gate: async () => {} })
    const ctx = manager.createTurnContext()
    const err = await manager.load('reports', ctx).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_SKILL_SOURCE_FAILED')).toBe(true)
    expect((err as Error).message).not.toContain('/var/x')
    expectClean(manager, ctx)
  })
})

describe('unload', () => {
  it('fails with E_SKILL_NOT_LOADED when not loaded', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    expect(await codeOf(manager.unload('reports', manager.createTurnContext()))).toBe(
      'E_SKILL_NOT_LOADED',
    )
  })

  it('retires the record: wrappers held by other contexts refuse with E_SKILL_NOT_LOADED', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    const a = manager.createTurnContext()
    await manager.load('reports', a)
    const b = manager.createTurnContext()
    await manager.middleware.turnInput(b, async () => undefined)
    const heldElsewhere = b.tools.get('echo')!
    await manager.unload('reports', a)
    expect(a.tools.has('echo')).toBe(false)
    expect(await codeOf(heldElsewhere.execute({ text: 'x' }, b))).toBe('E_SKILL_NOT_LOADED')
  })

  it('lets an in-flight call finish after unload, and only then tears down', async () => {
    let release!: (v: string) => void
    const slow = new Tool({
      name: 'slow',
      description: 'slow',
      inputSchema: { type: 'object' },
      handler: () => new Promise<string>((r) => (release = r)),
    })
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill({ tools: [slow] })])],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    await manager.load('reports', ctx)
    const running = ctx.tools.get('slow')!.execute({}, ctx)
    await new Promise((r) => setTimeout(r, 10))
    await manager.unload('reports', ctx)
    release('finished after unload')
    expect(String(await running)).toContain('finished after unload')
  })

  it('can load again after unload, with fresh wrappers', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    await manager.load('reports', ctx)
    const first = ctx.tools.get('echo')
    await manager.unload('reports', ctx)
    await manager.load('reports', ctx)
    expect(ctx.tools.get('echo')).not.toBe(first)
    expect(String(await ctx.tools.get('echo')!.execute({ text: 'again' }, ctx))).toContain(
      'echo: again',
    )
  })

  it('refuses mutations after dispose with E_SKILL_MANAGER_DISPOSED', async () => {
    const manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    await manager.dispose()
    expect(await codeOf(manager.load('reports', manager.createTurnContext()))).toBe(
      'E_SKILL_MANAGER_DISPOSED',
    )
  })
})
