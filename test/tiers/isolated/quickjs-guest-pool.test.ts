import { describe, expect, it } from 'vitest'
import {
  createQuickJsGuest,
  DEFAULT_ISOLATION_LIMITS,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { expectCode, tool } from '../../helpers/isolated.js'

const MiB = 1024 * 1024
const resolveOptions = () => ({
  signal: new AbortController().signal,
  limits: DEFAULT_ISOLATION_LIMITS,
  globals: [],
  modules: {},
})
// No call here is meant to time out: the deadline is one no machine is that
// slow for, since it covers a worker's start, which a loaded machine stretches.
const configFor = (resolveGuest: SkillIsolationConfig['resolveGuest']): SkillIsolationConfig => ({
  resolveGuest,
  maxTimeoutSeconds: 20,
  defaultTimeoutSeconds: 20,
})

describe('createQuickJsGuest', () => {
  it('starts workers lazily, reuses them, and terminates them all on dispose', async () => {
    await using pool = createQuickJsGuest({ poolSize: 2 })
    expect(pool.stats().alive).toBe(0)
    const config = configFor(pool.resolveGuest)
    for (let i = 0; i < 5; i++) await runIsolatedTool(config, tool('async () => 1'), {})
    expect(pool.stats()).toMatchObject({ alive: 1, busy: 0, spawned: 1, respawns: 0 })
    await pool[Symbol.asyncDispose]()
    expect(pool.stats().alive).toBe(0)
    await expectCode(pool.resolveGuest(resolveOptions()), 'E_SKILL_ISOLATED_GUEST_FAILED')
    await pool.dispose()
  })

  it('kill() on a running guest terminates its worker and a replacement takes over', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const guest = await pool.resolveGuest(resolveOptions())
    const running = guest.run({
      source: 'async () => { while (true) {} }',
      args: {},
      timeoutMs: 60_000,
      callGlobal: async () => undefined,
    })
    guest.kill()
    guest.kill()
    await expectCode(running, 'E_ABORTED')
    expect(pool.stats()).toMatchObject({ kills: 1, respawns: 1 })
    expect(
      (await runIsolatedTool(configFor(pool.resolveGuest), tool('async () => "after"'), {})).json,
    ).toBe('"after"')
    expect(pool.stats().alive).toBe(1)
    await pool.dispose()
  })

  it('kill() before run only returns the lease', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const guest = await pool.resolveGuest(resolveOptions())
    guest.kill()
    await expectCode(
      guest.run({
        source: 'async () => 1',
        args: {},
        timeoutMs: 1000,
        callGlobal: async () => undefined,
      }),
      'E_SKILL_ISOLATED_GUEST_FAILED',
    )
    expect(
      (await runIsolatedTool(configFor(pool.resolveGuest), tool('async () => 2'), {})).json,
    ).toBe('2')
    expect(pool.stats()).toMatchObject({ kills: 0, respawns: 0, spawned: 1 })
    await pool.dispose()
  })

  it('a caller waiting for a busy pool can abort', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const held = await pool.resolveGuest(resolveOptions())
    const ac = new AbortController()
    const waiting = pool.resolveGuest({ ...resolveOptions(), signal: ac.signal })
    // Wait for the pool's own counter, not for a clock.
    while (pool.stats().waiting < 1) await new Promise((r) => setTimeout(r, 5))
    expect(pool.stats().waiting).toBe(1)
    ac.abort()
    await expectCode(waiting, 'E_ABORTED')
    expect(pool.stats().waiting).toBe(0)
    held.kill()
    await pool.dispose()
  })

  it('dispose fails running and waiting calls instead of hanging them', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const config = {
      ...configFor(pool.resolveGuest),
      maxTimeoutSeconds: 30,
      defaultTimeoutSeconds: 30,
    }
    const running = expectCode(
      runIsolatedTool(config, tool('async () => { while (true) {} }'), {}),
      'E_SKILL_ISOLATED_GUEST_FAILED',
    )
    const queued = expectCode(
      runIsolatedTool(config, tool('async () => 1'), {}),
      'E_SKILL_ISOLATED_GUEST_FAILED',
    )
    // Dispose once one call holds the worker and the other waits (the pool's counters, not a clock).
    while (pool.stats().busy < 1 || pool.stats().waiting < 1) {
      await new Promise((r) => setTimeout(r, 5))
    }
    await pool.dispose()
    await running
    await queued
    expect(pool.stats().alive).toBe(0)
  })

  it('enforces the memory cap with the WebAssembly memory size', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    const config = configFor(pool.resolveGuest)
    // 24 MiB fits the default 32 MiB; 40 MiB does not.
    expect(
      (
        await runIsolatedTool(
          config,
          tool('async () => new Uint8Array(24 * 1024 * 1024).length'),
          {},
        )
      ).json,
    ).toBe(String(24 * MiB))
    await expectCode(
      runIsolatedTool(config, tool('async () => new Uint8Array(40 * 1024 * 1024).length'), {}),
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
    )
    // A larger configured cap is honoured up to the pool's ceiling ...
    const big = { ...config, limits: { memoryBytes: 64 * MiB } }
    await expectCode(
      runIsolatedTool(big, tool('async () => new Uint8Array(40 * 1024 * 1024).length'), {}),
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
    )
    await pool.dispose()
    await using roomy = createQuickJsGuest({ poolSize: 1, limits: { memoryBytes: 64 * MiB } })
    const roomyConfig = { ...configFor(roomy.resolveGuest), limits: { memoryBytes: 64 * MiB } }
    expect(
      (
        await runIsolatedTool(
          roomyConfig,
          tool('async () => new Uint8Array(40 * 1024 * 1024).length'),
          {},
        )
      ).json,
    ).toBe(String(40 * MiB))
    // ... and a configuration can always lower it.
    const tight = { ...configFor(roomy.resolveGuest), limits: { memoryBytes: 16 * MiB } }
    await expectCode(
      runIsolatedTool(tight, tool('async () => new Uint8Array(20 * 1024 * 1024).length'), {}),
      'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
    )
    await roomy.dispose()
  })

  it('refuses a nonsensical pool size', () => {
    expect(() => createQuickJsGuest({ poolSize: 0 })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
    )
  })
})
