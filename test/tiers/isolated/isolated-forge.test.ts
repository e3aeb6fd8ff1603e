import { afterAll, describe, expect, it } from 'vitest'
import { DisposableStore } from '../../../src/common/disposable.js'
import { deny, type ToolGate } from '../../../src/common/gate.js'
import type { Tool } from '../../../src/common/tool.js'
import { createTurnContext } from '../../../src/common/turn-context.js'
import type { SkillDescriptor } from '../../../src/sources/types.js'
import {
  createQuickJsGuest,
  type SkillIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { createIsolatedForge } from '../../../src/tiers/isolated/tier.js'
import type { ForgeTarget } from '../../../src/tiers/tier-forge.js'
import { expectCode, tool } from '../../helpers/isolated.js'

const pool = createQuickJsGuest({ poolSize: 1 })
const config: SkillIsolationConfig = {
  resolveGuest: pool.resolveGuest,
  // Generous deadlines: calls meant to succeed must succeed however loaded the machine is.
  maxTimeoutSeconds: 30,
  defaultTimeoutSeconds: 20,
}
const stores: DisposableStore[] = []
afterAll(async () => {
  for (const store of stores) await store.dispose()
  await pool.dispose()
})

/** Tier 2's tool for one declared isolated tool, forged as the manager does, for a skill `demo@1`. */
async function forge(decl: SkillIsolatedTool, gate: ToolGate = async () => {}): Promise<Tool> {
  const store = new DisposableStore()
  stores.push(store)
  const target: ForgeTarget = {
    id: 'demo',
    version: '1',
    source: { id: 'demo', version: '1' },
    descriptor: { id: 'demo', isolatedTools: [decl] } as unknown as SkillDescriptor,
    store,
    enter: () => {},
    exit: () => {},
  }
  const [forged] = await createIsolatedForge(config, gate).forge(
    target,
    undefined as never,
    new AbortController().signal,
  )
  if (!forged) throw new Error('no tool forged')
  return forged
}

// The one way to make an isolated tool a host Tool: through the tool-call
// envelope, so every call is gated and its result spooled with provenance.
// (`forgeIsolatedTool`, a public wrapper that skipped both, is gone.)
describe('the isolated forge', () => {
  const params = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }

  it('builds an untrusted Tool whose schema adds timeout_seconds and spools its result', async () => {
    const t = await forge(tool('async (a) => { console.log(a.n); return a.n + 1 }', params))
    expect(t.trusted).toBe(false)
    expect(t.jsonSchema).toMatchObject({
      properties: { n: { type: 'number' }, timeout_seconds: { maximum: 30 } },
    })
    const ctx = createTurnContext()
    const out = String(await t.execute({ n: 1, timeout_seconds: 20 }, ctx))
    const [json, footer] = out.split('\n\n')
    expect(JSON.parse(json as string)).toEqual({
      result: 2,
      console: [{ level: 'log', text: '1' }],
      consoleTruncated: false,
    })
    const id = /^\[result (r_\w+) · \d+ bytes · kind json\]$/.exec(footer as string)?.[1]
    const spooled = await ctx.spool.stat(id as string)
    expect(spooled?.trusted).toBe(false)
    expect(spooled?.provenance).toMatchObject({ skill: 'demo', skillVersion: '1', tool: 'probe' })
  })

  it('asks the gate before the guest runs', async () => {
    const seen: string[] = []
    const t = await forge(tool('async () => 1'), async (_ctx, request) => {
      seen.push(`${request.tier} ${request.tool} ${request.skill?.id}`)
      throw deny('not today')
    })
    await expectCode(t.execute({}, createTurnContext()), 'E_TOOL_DENIED')
    expect(seen).toEqual(['isolated probe demo'])
  })

  it('validates args and honours the turn abort signal', async () => {
    const t = await forge(tool('async (a) => { for (;;) {} }', params))
    await expectCode(t.execute({ n: 'x' }, createTurnContext()), 'E_TOOL_INVALID_ARGS')
    await expectCode(
      t.execute({ n: 1, timeout_seconds: 99 }, createTurnContext()),
      'E_TOOL_INVALID_ARGS',
    )
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 100)
    await expectCode(
      t.execute({ n: 1, timeout_seconds: 30 }, createTurnContext({ abortSignal: ac.signal })),
      'E_ABORTED',
    )
  })

  it('refuses params that declare timeout_seconds themselves', async () => {
    const clash = { type: 'object', properties: { timeout_seconds: { type: 'string' } } }
    await expect(forge(tool('async () => 1', clash))).rejects.toMatchObject({
      code: 'E_SKILL_MANIFEST_INVALID',
    })
  })
})
