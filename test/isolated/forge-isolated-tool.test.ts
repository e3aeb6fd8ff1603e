import { afterAll, describe, expect, it } from 'vitest'
import { createTurnContext } from '../../src/common/turn-context.js'
import {
  createQuickJsGuest,
  forgeIsolatedTool,
  type SkillIsolationConfig,
} from '../../src/tiers/isolated/index.js'
import { expectCode, tool } from './helpers.js'

const pool = createQuickJsGuest({ poolSize: 1 })
const config: SkillIsolationConfig = {
  resolveGuest: pool.resolveGuest,
  // A deadline no machine is that slow for: it covers a worker's start, which a
  // loaded machine stretches. No call here is meant to time out.
  maxTimeoutSeconds: 20,
  defaultTimeoutSeconds: 20,
}
afterAll(() => pool.dispose())

describe('forgeIsolatedTool', () => {
  const params = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }

  it('builds an untrusted Tool whose schema adds timeout_seconds', async () => {
    const t = forgeIsolatedTool(
      config,
      tool('async (a) => { console.log(a.n); return a.n + 1 }', params),
    )
    expect(t.trusted).toBe(false)
    expect(t.jsonSchema).toMatchObject({
      properties: { n: { type: 'number' }, timeout_seconds: { maximum: 20 } },
    })
    const out = await t.execute({ n: 1, timeout_seconds: 2 }, createTurnContext())
    expect(JSON.parse(out as string)).toEqual({
      result: 2,
      console: [{ level: 'log', text: '1' }],
      consoleTruncated: false,
    })
  })

  it('validates args and honours the turn abort signal', async () => {
    const t = forgeIsolatedTool(config, tool('async (a) => { for (;;) {} }', params))
    await expectCode(t.execute({ n: 'x' }, createTurnContext()), 'E_TOOL_INVALID_ARGS')
    await expectCode(
      t.execute({ n: 1, timeout_seconds: 99 }, createTurnContext()),
      'E_TOOL_INVALID_ARGS',
    )
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 100)
    await expectCode(
      t.execute({ n: 1, timeout_seconds: 20 }, createTurnContext({ abortSignal: ac.signal })),
      'E_ABORTED',
    )
  })

  it('refuses params that declare timeout_seconds themselves', () => {
    const clash = { type: 'object', properties: { timeout_seconds: { type: 'string' } } }
    expect(() => forgeIsolatedTool(config, tool('async () => 1', clash))).toThrow(
      expect.objectContaining({ code: 'E_SKILL_MANIFEST_INVALID' }),
    )
  })
})
