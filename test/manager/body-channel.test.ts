import { afterEach, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { AUTO_INLINE_MAX_CHARS, createSkillManager } from '../../src/manager/index.js'
import type { SkillChannel, SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { rejectsWith } from '../helpers/error-code.js'

const small = `# Small\n\n${'s'.repeat(AUTO_INLINE_MAX_CHARS - 10)}`
const exact = 'e'.repeat(AUTO_INLINE_MAX_CHARS)
const large = `# Large\n\n${'l'.repeat(AUTO_INLINE_MAX_CHARS)}`

const managers: SkillManager[] = []
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()))
})

async function managerWith(defaultChannel?: SkillChannel): Promise<SkillManager> {
  const source = new InMemorySkillSource({
    skills: [
      { name: 'small', description: 'Small.', body: small },
      { name: 'exact', description: 'Exactly the budget.', body: exact },
      { name: 'large', description: 'Large.', body: large },
      { name: 'pinned', description: 'Asks for inline.', body: large, channel: 'inline' },
    ],
  })
  const manager = await createSkillManager({
    sources: [source],
    gate: async () => undefined,
    ...(defaultChannel ? { defaultChannel } : {}),
  })
  managers.push(manager)
  return manager
}

describe("the body channel 'auto'", () => {
  it('inlines a body up to the budget and hands out a handle past it, reporting the channel used', async () => {
    const manager = await managerWith('auto')
    const ctx = manager.createTurnContext()
    const s = await manager.load('small', ctx)
    expect(s.channel).toBe('inline')
    expect(s.body).toBe(small)
    expect(s.handle).toBeUndefined()
    expect((await manager.load('exact', ctx)).channel).toBe('inline')
    const l = await manager.load('large', ctx)
    expect(l.channel).toBe('handle')
    expect(l.body).toBeUndefined()
    expect(l.handle?.size).toBe(large.length)
    // The handle is readable with the artifact readers, like any handle body.
    const head = await ctx.tools.get('artifact_head')?.execute({ id: l.handle?.id, lines: 1 }, ctx)
    expect(String(head)).toContain('# Large')
    // A skill's own channel wins over the default.
    expect((await manager.load('pinned', ctx)).channel).toBe('inline')
    // The lifecycle tool reports the channel actually used, never 'auto'.
    const tools = forgeSkillTools(manager)
    const unload = tools.find((t) => t.name === 'unload_skill')
    const load = tools.find((t) => t.name === 'load_skill')
    await unload?.execute({ skill: 'large' }, ctx)
    const again = JSON.parse(String(await load?.execute({ skill: 'large' }, ctx)))
    expect(again.channel).toBe('handle')
  })

  it("keeps 'handle' as the library default", async () => {
    const manager = await managerWith()
    const result = await manager.load('small', manager.createTurnContext())
    expect(result.channel).toBe('handle')
    expect(result.handle).toBeDefined()
  })

  it('refuses an unknown channel', async () => {
    const err = await rejectsWith(
      createSkillManager({
        sources: [new InMemorySkillSource()],
        gate: async () => undefined,
        defaultChannel: 'sometimes' as SkillChannel,
      }),
      'E_INVALID_SKILLS_CONFIG',
    )
    expect(err.message).toContain("'inline', 'handle' or 'auto'")
  })
})
