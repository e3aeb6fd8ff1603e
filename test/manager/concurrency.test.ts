import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { echoTool, memorySource, reportSkill } from '../helpers/manager-fixtures.js'

/** A small seeded PRNG (mulberry32) so a failing sequence can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const EXPECTED = new Set(['E_SKILL_ALREADY_LOADED', 'E_SKILL_NOT_LOADED', 'E_SKILL_TOOL_COLLISION'])

describe('concurrent lifecycle mutations', () => {
  it('two loads claiming the same tool name: exactly one wins, the other gets E_SKILL_TOOL_COLLISION', async () => {
    for (let round = 0; round < 20; round++) {
      const a = reportSkill({ name: 'alpha', tools: [echoTool('shared')] })
      const b = reportSkill({ name: 'beta', tools: [echoTool('shared')] })
      await using manager = await createSkillManager({
        sources: [memorySource([a, b])],
        gate: async () => {},
      })
      const ctx = manager.createTurnContext()
      const outcomes = await Promise.allSettled([
        manager.load('alpha', ctx),
        manager.load('beta', ctx),
      ])
      const won = outcomes.filter((o) => o.status === 'fulfilled')
      const lost = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[]
      expect(won).toHaveLength(1)
      expect(lost).toHaveLength(1)
      expect(SkillHostError.is(lost[0]!.reason, 'E_SKILL_TOOL_COLLISION')).toBe(true)
      expect(manager.loaded()).toHaveLength(1)
      // The loser's failed prepare released its claims: after the winner leaves, it loads.
      const winner = manager.loaded()[0]!
      await manager.unload(winner, ctx)
      await manager.load(winner === 'alpha' ? 'beta' : 'alpha', ctx)
    }
  })

  it('200 randomized load/unload/refresh interleavings leave no orphan tool, claim or projection', async () => {
    const names = ['alpha', 'beta', 'gamma', 'delta']
    for (let seed = 1; seed <= 200; seed++) {
      const random = rng(seed)
      // alpha and beta both claim `shared`, so collisions happen under interleaving.
      const source = memorySource([
        reportSkill({ name: 'alpha', tools: [echoTool('shared'), echoTool('alpha_tool')] }),
        reportSkill({ name: 'beta', tools: [echoTool('shared')] }),
        reportSkill({ name: 'gamma', tools: [echoTool('gamma_tool')] }),
        reportSkill({ name: 'delta', tools: [] }),
      ])
      const manager = await createSkillManager({ sources: [source], gate: async () => {} })
      const contexts = [manager.createTurnContext(), manager.createTurnContext()]
      const ops: Promise<unknown>[] = []
      for (let i = 0; i < 12; i++) {
        const id = names[Math.floor(random() * names.length)]!
        const ctx = contexts[Math.floor(random() * contexts.length)]!
        const roll = random()
        let op: Promise<unknown>
        if (roll < 0.45) op = manager.load(id, ctx)
        else if (roll < 0.8) op = manager.unload(id, ctx)
        else if (roll < 0.9) op = manager.refresh()
        else {
          source.replace(
            reportSkill({ name: 'gamma', body: `# gamma ${i}\n`, tools: [echoTool('gamma_tool')] }),
          )
          op = manager.refreshAndProject(ctx)
        }
        ops.push(
          op.catch((e: unknown) => {
            if (!SkillHostError.isInstance(e) || !EXPECTED.has(e.code)) throw e
            // The only legitimate collision is alpha vs beta over `shared`; a
            // collision with a stale wrapper left in a context is a bug.
            if (e.code === 'E_SKILL_TOOL_COLLISION')
              expect(e.message).toMatch(/a tool of loaded skill '(alpha|beta)'/)
          }),
        )
      }
      await Promise.all(ops)
      const loaded = new Set(manager.loaded())
      expect(loaded.has('alpha') && loaded.has('beta'), `seed ${seed}: both claimants loaded`).toBe(
        false,
      )
      for (const ctx of contexts) {
        for (const tool of ctx.tools.all()) {
          if (tool.name.startsWith('artifact_')) continue
          if (tool.name === 'read_skill_file') {
            // Not a skill's tool: it stays while the context holds a projection, and reads loaded skills only.
            for (const id of names.filter((n) => !loaded.has(n))) {
              const err = await tool.execute({ skill: id, path: '.' }, ctx).catch((e: unknown) => e)
              expect(SkillHostError.is(err, 'E_SKILL_NOT_LOADED'), `seed ${seed}: ${id}`).toBe(true)
            }
            continue
          }
          // Every skill tool still registered belongs to a loaded skill, or is a retired wrapper that refuses.
          const owner = String(tool.meta.skill)
          if (!loaded.has(owner) || !manager.projected(ctx).includes(owner)) {
            const err = await tool.execute({ text: 'x' }, ctx).catch((e: unknown) => e)
            expect(
              SkillHostError.is(err, 'E_SKILL_NOT_LOADED'),
              `seed ${seed}: orphan ${tool.name}`,
            ).toBe(true)
          }
        }
        for (const id of manager.projected(ctx)) expect(loaded.has(id)).toBe(true)
      }
      // No orphan claim: unload everything, then every skill loads on its own.
      for (const id of [...loaded]) await manager.unload(id, contexts[0]!)
      const fresh = manager.createTurnContext()
      for (const id of names) {
        await manager.load(id, fresh)
        await manager.unload(id, fresh)
      }
      expect(manager.loaded()).toEqual([])
      await manager.dispose()
    }
  }, 120_000)
})
