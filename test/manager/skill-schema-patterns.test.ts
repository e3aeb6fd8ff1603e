import { afterAll, describe, expect, it } from 'vitest'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { createQuickJsGuest } from '../../src/tiers/isolated/index.js'
import { rejectsWith } from '../helpers/error-code.js'
import { memorySource, reportSkill } from '../helpers/manager-fixtures.js'

// A skill's JSON Schema is untrusted input: its regexes run before the gate, on the host's main thread.
const ECHO = 'async (args) => ({ got: args.code })'
const skillWithPattern = (name: string, pattern: string) =>
  reportSkill({
    name,
    tools: [],
    isolatedTools: [
      {
        name: `check_${name.replace(/-/g, '_')}`,
        description: 'Echoes a code.',
        params: {
          type: 'object',
          required: ['code'],
          properties: { code: { type: 'string', pattern } },
        },
        source: ECHO,
      },
    ],
  })

describe('skill-declared schema patterns', () => {
  const pool = createQuickJsGuest({ poolSize: 1 })
  afterAll(() => pool.dispose())
  const manager = (...skills: ReturnType<typeof reportSkill>[]) =>
    createSkillManager({
      sources: [memorySource(skills)],
      gate: async () => {},
      isolation: {
        resolveGuest: pool.resolveGuest,
        // Generous: the calls must succeed however loaded the machine is.
        maxTimeoutSeconds: 20,
        defaultTimeoutSeconds: 20,
      },
    })

  it('a catastrophic-backtracking pattern matches in linear time: invalid args, then a normal call', async () => {
    await using m = await manager(skillWithPattern('redos', '^(a+)+$'))
    const ctx = m.createTurnContext()
    await m.load('redos', ctx)
    const tool = ctx.tools.get('check_redos')!
    // 34 characters take a backtracking engine longer than any test timeout; 100,000 here.
    for (const code of [`${'a'.repeat(34)}!`, `${'a'.repeat(100_000)}!`]) {
      await rejectsWith(tool.execute({ code }, ctx), 'E_TOOL_INVALID_ARGS')
    }
    expect(String(await tool.execute({ code: 'aaaa' }, ctx))).toContain('"got":"aaaa"')
  })

  it('a pattern with no linear-time algorithm (backreference, lookahead) is refused at load, typed', async () => {
    for (const [name, pattern] of [
      ['backref', '^(a)\\1$'],
      ['lookahead', '^(?=a)a$'],
    ] as const) {
      await using m = await manager(skillWithPattern(name, pattern))
      const ctx = m.createTurnContext()
      const err = await rejectsWith(m.load(name, ctx), 'E_INVALID_SKILLS_CONFIG')
      expect(err.message).toMatch(/RE2 syntax/)
      expect(m.loaded()).toEqual([])
      expect(ctx.tools.all()).toEqual([])
    }
  })
})
