import { describe, expect, it } from 'vitest'
import {
  createInProcessGuest,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { expectCode, tool } from '../../helpers/isolated.js'

describe('createInProcessGuest (unsafe opt-in)', () => {
  it('warns once, however many resolvers are created', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => {
      if ((w as { code?: string }).code === 'SKILLHOST_ISOLATED_IN_PROCESS') warnings.push(w)
    }
    process.on('warning', onWarning)
    createInProcessGuest()
    createInProcessGuest()
    await new Promise((r) => setImmediate(r))
    process.off('warning', onWarning)
    expect(warnings.length).toBeLessThanOrEqual(1)
  })

  const config: SkillIsolationConfig = {
    resolveGuest: createInProcessGuest(),
    // Generous for calls that must succeed (a loaded machine is slow); the
    // one runaway below asks for 1 s itself.
    maxTimeoutSeconds: 20,
    defaultTimeoutSeconds: 20,
    globals: { echo: async (a) => a },
  }

  it('runs the same QuickJS evaluation on the calling thread', async () => {
    const r = await runIsolatedTool(
      config,
      tool('async (a) => { console.log("in"); return echo(a) }'),
      { x: 1 },
    )
    expect(r.json).toBe('{"x":1}')
    expect(r.console).toEqual([{ level: 'log', text: 'in' }])
  })

  it('keeps the memory cap, the stack cap and the soft deadline', async () => {
    await expectCode(
      runIsolatedTool(config, tool('async () => new Uint8Array(40 * 1024 * 1024).length'), {}),
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
    )
    await expectCode(
      runIsolatedTool(config, tool('async () => { const f = () => f(); f() }'), {}),
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
    )
    await expectCode(
      runIsolatedTool(config, tool('async () => { while (true) {} }'), {}, { timeoutSeconds: 1 }),
      'E_SKILL_ISOLATED_TIMEOUT',
    )
    expect((await runIsolatedTool(config, tool('async () => "ok"'), {})).json).toBe('"ok"')
  })

  it('kill() is best-effort: it stops a guest waiting on the host', async () => {
    const ac = new AbortController()
    const hanging = { ...config, globals: { wait: () => new Promise(() => {}) } }
    setTimeout(() => ac.abort(), 50)
    await expectCode(
      runIsolatedTool(
        hanging,
        tool('async () => { await wait(); for (;;) {} }'),
        {},
        { signal: ac.signal },
      ),
      'E_ABORTED',
    )
    expect((await runIsolatedTool(config, tool('async () => "next"'), {})).json).toBe('"next"')
  })
})
