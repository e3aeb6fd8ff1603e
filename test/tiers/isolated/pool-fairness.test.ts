import { describe, expect, it } from 'vitest'
import { createSkillManager } from '../../../src/manager/create-skill-manager.js'
import {
  createQuickJsGuest,
  type GuestResolver,
  type QuickJsGuestPool,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { expectCode, tool } from '../../helpers/isolated.js'
import { memorySource, reportSkill } from '../../helpers/manager-fixtures.js'

/** A host global the test resolves by hand: guests that await it hold their worker. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, wait: async () => opened }
}

function configFor(
  pool: QuickJsGuestPool,
  globals: SkillIsolationConfig['globals'] = {},
): SkillIsolationConfig {
  return {
    resolveGuest: pool.resolveGuest,
    // Generous: a deadline covers the queue wait and a worker's (re)start, which
    // a loaded machine stretches; the one call meant to time out asks for 1 s.
    maxTimeoutSeconds: 20,
    defaultTimeoutSeconds: 20,
    globals,
  }
}

/** Resolves once the pool holds `n` waiting calls (polling the pool's own counter, not a clock). */
async function untilWaiting(pool: QuickJsGuestPool, n: number): Promise<void> {
  while (pool.stats().waiting < n) await new Promise((r) => setTimeout(r, 5))
}

/** Resolves once `n` workers are leased. */
async function untilBusy(pool: QuickJsGuestPool, n: number): Promise<void> {
  while (pool.stats().busy < n) await new Promise((r) => setTimeout(r, 5))
}

async function normalCallWorks(pool: QuickJsGuestPool): Promise<void> {
  const r = await runIsolatedTool(configFor(pool), tool('async () => "still fine"'), {})
  expect(r.json).toBe('"still fine"')
  expect(pool.stats()).toMatchObject({ busy: 0, waiting: 0, owners: 0 })
}

describe('guest pool fairness', () => {
  it('a short call behind a busy long guest ends by its own deadline, not the long one', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const config = configFor(pool)
    const order: string[] = []
    const long = new AbortController()
    const longCall = runIsolatedTool(
      config,
      tool('async () => { while (true) {} }'),
      {},
      { timeoutSeconds: 20, signal: long.signal, owner: 'a' },
    ).finally(() => order.push('long'))
    await untilBusy(pool, 1)
    const short = runIsolatedTool(
      config,
      tool('async () => "ran"'),
      {},
      { timeoutSeconds: 1, owner: 'b' },
    ).finally(() => order.push('short'))
    const e = await expectCode(short, 'E_SKILL_ISOLATED_TIMEOUT')
    // It never ran: it timed out in the queue, while the long guest still held the worker.
    expect(e.data).toMatchObject({ queued: true })
    expect(e.message).toMatch(/waited for a free guest/)
    expect(order).toEqual(['short'])
    expect(pool.stats()).toMatchObject({ busy: 1, waiting: 0 })
    long.abort()
    await expectCode(longCall, 'E_ABORTED')
    expect(order).toEqual(['short', 'long'])
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it('gives the guest only what the queue left of the timeout', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const budgets: number[] = []
    // The real pool guest, with the deadline it is handed recorded on the way.
    const resolveGuest: GuestResolver = async (options) => {
      const guest = await pool.resolveGuest(options)
      return {
        run: (request) => {
          budgets.push(request.timeoutMs)
          return guest.run(request)
        },
        kill: () => guest.kill(),
      }
    }
    const config = { ...configFor(pool), resolveGuest }
    await pool.warm()
    // 20 s, not less: the queued call below waits for a worker to be respawned.
    expect(
      (await runIsolatedTool(config, tool('async () => 1'), {}, { timeoutSeconds: 20 })).json,
    ).toBe('1')
    const held = await pool.resolveGuest({
      signal: new AbortController().signal,
      limits: pool.limits,
      globals: [],
      modules: {},
    })
    const queued = runIsolatedTool(config, tool('async () => 2'), {}, { timeoutSeconds: 20 })
    await untilWaiting(pool, 1)
    await new Promise((r) => setTimeout(r, 100))
    held.kill()
    expect((await queued).json).toBe('2')
    // The queued call's guest got what was left after it waited, less than
    // the call that found a free worker at once, and never more than asked.
    const [first = 0, second = 0] = budgets
    expect(first).toBeLessThanOrEqual(20_000)
    expect(second).toBeLessThan(first)
    expect(second).toBeGreaterThan(0)
    await pool.dispose()
  })

  it('fails fast with E_SKILL_ISOLATED_BUSY when the wait queue is full', async () => {
    await using pool = createQuickJsGuest({
      poolSize: 1,
      fairShare: { maxQueued: 2, maxQueuedPerOwner: 2 },
    })
    const hold = gate()
    const config = configFor(pool, { hold: hold.wait })
    const holder = runIsolatedTool(
      config,
      tool('async () => { await hold(); return "held" }'),
      {},
      {
        owner: 'x',
      },
    )
    await untilBusy(pool, 1)
    const queued = [
      runIsolatedTool(config, tool('async () => 1'), {}, { owner: 'y' }),
      runIsolatedTool(config, tool('async () => 2'), {}, { owner: 'z' }),
    ]
    await untilWaiting(pool, 2)
    const e = await expectCode(
      runIsolatedTool(config, tool('async () => 3'), {}, { owner: 'w' }),
      'E_SKILL_ISOLATED_BUSY',
    )
    expect(e.data).toMatchObject({ queue: 'pool' })
    expect(e.message).toBe(
      'Every isolated guest is busy and the wait queue is full; nothing ran. Retry later.',
    )
    expect(pool.stats()).toMatchObject({ waiting: 2, refused: 1 })
    hold.open()
    expect((await holder).json).toBe('"held"')
    expect((await Promise.all(queued)).map((r) => r.json)).toEqual(['1', '2'])
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it("refuses one session's flood past its share of the queue, and still queues the others", async () => {
    await using pool = createQuickJsGuest({
      poolSize: 1,
      fairShare: { maxQueued: 10, maxQueuedPerOwner: 2 },
    })
    const hold = gate()
    const config = configFor(pool, { hold: hold.wait })
    const holder = runIsolatedTool(
      config,
      tool('async () => { await hold(); return 0 }'),
      {},
      {
        owner: 'a',
      },
    )
    await untilBusy(pool, 1)
    const flood = [1, 2, 3, 4].map((i) =>
      runIsolatedTool(config, tool(`async () => ${i}`), {}, { owner: 'a' }).then(
        (r) => r.json,
        (err) => err.code as string,
      ),
    )
    // The third and fourth are refused at once, while the holder still runs.
    expect(await Promise.all(flood.slice(2))).toEqual([
      'E_SKILL_ISOLATED_BUSY',
      'E_SKILL_ISOLATED_BUSY',
    ])
    const other = runIsolatedTool(config, tool('async () => "b"'), {}, { owner: 'b' })
    await untilWaiting(pool, 3)
    expect(pool.stats()).toMatchObject({ refused: 2, busy: 1, waiting: 3 })
    hold.open()
    await holder
    expect(await Promise.all(flood.slice(0, 2))).toEqual(['1', '2'])
    expect((await other).json).toBe('"b"')
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it("serves a second session's single call before the first session's queued flood", async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const hold = gate()
    const starts: string[] = []
    const config = configFor(pool, {
      hold: hold.wait,
      started: async (label) => {
        starts.push(String(label))
      },
    })
    const call = (label: string, owner: string) =>
      runIsolatedTool(
        config,
        tool(
          'async (a) => { await started(a.label); if (a.label === "a1") await hold(); return a.label }',
        ),
        { label },
        { owner },
      )
    const a1 = call('a1', 'session-a')
    while (starts.length === 0) await new Promise((r) => setTimeout(r, 5))
    const flood = ['a2', 'a3', 'a4', 'a5'].map((label) => call(label, 'session-a'))
    await untilWaiting(pool, 4)
    const b1 = call('b1', 'session-b')
    await untilWaiting(pool, 5)
    hold.open()
    await Promise.all([a1, b1, ...flood])
    // First come, first served would start b1 last.
    expect(starts).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5'])
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it('caps the workers one session holds, so another session always finds one', async () => {
    await using pool = createQuickJsGuest({ poolSize: 2 })
    expect(pool.fairShare.maxActivePerOwner).toBe(1)
    const hold = gate()
    const config = configFor(pool, { hold: hold.wait })
    const busy = [1, 2].map((i) =>
      runIsolatedTool(
        config,
        tool(`async () => { await hold(); return ${i} }`),
        {},
        { owner: 'a' },
      ),
    )
    await untilWaiting(pool, 1)
    // Session a holds one worker and waits for a second; session b runs on the other.
    const b = await runIsolatedTool(config, tool('async () => "b"'), {}, { owner: 'b' })
    expect(b.json).toBe('"b"')
    expect(pool.stats()).toMatchObject({ busy: 1, waiting: 1 })
    hold.open()
    expect((await Promise.all(busy)).map((r) => r.json)).toEqual(['1', '2'])
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it('makes each manager (one per MCP session in serve) its own pool owner', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const owners: unknown[] = []
    const resolveGuest: GuestResolver = (options) => {
      owners.push(options.owner)
      return pool.resolveGuest(options)
    }
    const skill = reportSkill({
      name: 'calc',
      tools: [],
      isolatedTools: [{ name: 'one', description: 'Returns 1.', source: 'async () => 1' }],
    })
    const manager = (owner?: unknown) =>
      createSkillManager({
        sources: [memorySource([skill])],
        gate: async () => {},
        isolation: {
          resolveGuest,
          // Generous: the calls must succeed however loaded the machine is.
          maxTimeoutSeconds: 20,
          defaultTimeoutSeconds: 20,
          ...(owner === undefined ? {} : { owner }),
        },
      })
    const callTwice = async (m: Awaited<ReturnType<typeof manager>>) => {
      for (let turn = 0; turn < 2; turn++) {
        const ctx = m.createTurnContext()
        await m.load('calc', ctx)
        await ctx.tools.get('one')?.execute({}, ctx)
        await m.unload('calc', ctx)
      }
    }
    await using first = await manager()
    await using second = await manager()
    await using shared = await manager('user-1')
    await callTwice(first)
    await callTwice(second)
    await callTwice(shared)
    expect(owners).toHaveLength(6)
    // Stable across a manager's turns, distinct between managers, overridable.
    expect(owners[0]).toBe(owners[1])
    expect(owners[2]).toBe(owners[3])
    expect(owners[0]).not.toBe(owners[2])
    expect(owners.slice(4)).toEqual(['user-1', 'user-1'])
    await normalCallWorks(pool)
    await pool.dispose()
  })

  it('refuses nonsensical fair-share bounds', () => {
    for (const fairShare of [
      { maxQueued: 0 },
      { maxActivePerOwner: 1.5 },
      { maxQueuedPerOwner: -1 },
    ]) {
      expect(() => createQuickJsGuest({ poolSize: 1, fairShare })).toThrow(
        expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
      )
    }
  })
})
