import { describe, expect, it } from 'vitest'
import { MemorySpoolStore } from '../../src/common/memory-spool-store.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { memorySource, recordingGate, reportSkill } from '../helpers/manager-fixtures.js'

const call = async (ctx: { tools: { get(n: string): unknown } }, name: string, args: unknown) => {
  const tool = ctx.tools.get(name) as
    | { execute(a: unknown, c: unknown): Promise<unknown> }
    | undefined
  if (!tool) throw new Error(`tool ${name} is not offered`)
  return tool.execute(args, ctx)
}

describe('a whole conversation over several turns', () => {
  it('lists, loads, calls, reads the body, unloads, and keeps the result readable', async () => {
    const gate = recordingGate()
    const spool = new MemorySpoolStore()
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate,
      spool,
    })
    const lifecycle = forgeSkillTools(manager)
    const newTurn = () => {
      const ctx = manager.createTurnContext()
      for (const tool of lifecycle) ctx.tools.register(tool)
      return ctx
    }
    const turn = async <T>(body: (ctx: ReturnType<typeof newTurn>) => Promise<T>) => {
      const ctx = newTurn()
      return manager.middleware.turnInput(ctx, () =>
        manager.middleware.turnOutput(ctx, () => body(ctx)),
      )
    }

    // Turn 1: list and load.
    const loadOut = await turn(async (ctx) => {
      const listed = JSON.parse(String(await call(ctx, 'list_skills', {})))
      expect(listed.skills.map((s: { id: string }) => s.id)).toEqual(['reports'])
      expect(listed.skills[0].loaded).toBe(false)
      const loaded = JSON.parse(String(await call(ctx, 'load_skill', { skill: 'reports' })))
      expect(loaded.channel).toBe('handle')
      expect(loaded.toolsAdded).toEqual(['echo'])
      expect(ctx.tools.has('echo')).toBe(true)
      expect(manager.projected(ctx)).toEqual(['reports'])
      return loaded
    })
    expect(loadOut.handle.text).toContain('## Usage')

    // Turn 2: the middleware projects the skill; call its tool and read the body through the readers.
    const resultId = await turn(async (ctx) => {
      expect(manager.projected(ctx)).toEqual(['reports'])
      const out = String(await call(ctx, 'echo', { text: 'hello' }))
      expect(out).toContain('echo: hello')
      const id = /result (r_[0-9a-f]{16})/.exec(out)?.[1]
      expect(id).toBeDefined()
      const section = String(
        await call(ctx, 'artifact_md_section', { id: loadOut.handle.id, heading: 'Usage' }),
      )
      expect(section).toContain('Call `echo` with text.')
      return id as string
    })

    // Turn 3: unload.
    await turn(async (ctx) => {
      const out = JSON.parse(String(await call(ctx, 'unload_skill', { skill: 'reports' })))
      expect(out.toolsRemoved).toEqual(['echo'])
      expect(ctx.tools.has('echo')).toBe(false)
      expect(ctx.retrievables.size).toBe(0)
    })

    // Turn 4: neither body nor tools; the earlier result is still readable by id.
    await turn(async (ctx) => {
      expect(manager.projected(ctx)).toEqual([])
      expect(manager.loaded()).toEqual([])
      expect(ctx.tools.has('echo')).toBe(false)
      expect(ctx.retrievables.size).toBe(0)
      const again = String(await call(ctx, 'artifact_cat', { id: resultId }))
      expect(again).toContain('echo: hello')
    })
    expect(gate.calls).toEqual(['list_skills', 'load_skill', 'echo', 'unload_skill'])
  })

  it('without turnInput a loaded skill is not in the next turn, and loaded() differs from projected()', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    const first = manager.createTurnContext()
    await manager.load('reports', first)
    const second = manager.createTurnContext()
    expect(manager.loaded()).toEqual(['reports'])
    expect(manager.projected(first)).toEqual(['reports'])
    expect(manager.projected(second)).toEqual([])
    expect(second.tools.has('echo')).toBe(false)
    await manager.middleware.turnInput(second, async () => {
      expect(manager.projected(second)).toEqual(['reports'])
      expect(second.tools.has('echo')).toBe(true)
    })
  })

  it('turnOutput strips the projection at the end of the turn, even when the turn throws', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill()])],
      gate: async () => {},
    })
    await manager.load('reports', manager.createTurnContext())
    const ctx = manager.createTurnContext()
    await expect(
      manager.middleware.turnInput(ctx, () =>
        manager.middleware.turnOutput(ctx, async () => {
          expect(ctx.tools.has('echo')).toBe(true)
          throw new Error('turn failed')
        }),
      ),
    ).rejects.toThrow('turn failed')
    expect(ctx.tools.has('echo')).toBe(false)
    expect(ctx.retrievables.size).toBe(0)
    expect(manager.projected(ctx)).toEqual([])
  })

  it('projects an inline body as text', async () => {
    await using manager = await createSkillManager({
      sources: [memorySource([reportSkill({ channel: 'inline' })])],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    const result = await manager.load('reports', ctx)
    expect(result.channel).toBe('inline')
    expect(result.body).toContain('Use the reports tool')
    expect(ctx.retrievables.all()[0]?.text).toContain('Use the reports tool')
  })
})
