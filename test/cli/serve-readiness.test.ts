import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_PROBE_TTL_MS, serveReadiness } from '../../src/cli/serve/serve-readiness.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

let sandbox: ScriptSandbox
beforeAll(async () => {
  sandbox = await createScriptSandbox({ maxTimeoutSeconds: 10, defaultTimeoutSeconds: 5 })
})
afterAll(async () => sandbox?.dispose())

describe("serve's readiness: the sandbox probe is cached (issue 41 item 1)", () => {
  it('probes bubblewrap at most once per TTL however many ask, and says failing when it no longer starts', async () => {
    const handle = sandbox.config.handle
    let probes = 0
    let clock = 0
    const ready = serveReadiness({
      probeSandbox: async () => {
        probes++
        await handle.probe?.()
      },
      now: () => clock,
    })
    // Within the TTL of the startup probe: 50 asks, no bwrap.
    for (let i = 0; i < 50; i++) expect((await ready()).checks.sandbox).toBe('ok')
    expect(probes).toBe(0)
    // Past it: 20 asks at once share one real probe.
    clock += SANDBOX_PROBE_TTL_MS
    const answers = await Promise.all(Array.from({ length: 20 }, () => ready()))
    expect(probes).toBe(1)
    for (const a of answers)
      expect(a).toEqual({ ready: true, checks: { catalog: 'ok', postgres: 'off', sandbox: 'ok' } })
    // A handle that can no longer start a sandbox (disposed): the next probe says so.
    await handle.dispose?.()
    clock += SANDBOX_PROBE_TTL_MS
    expect(await ready()).toEqual({
      ready: false,
      checks: { catalog: 'ok', postgres: 'off', sandbox: 'failing' },
    })
    expect(probes).toBe(2)
  })

  it('PostgreSQL: one ping in flight at a time; a failing ping is failing, never its message', async () => {
    let pings = 0
    let release: (() => void) | undefined
    const ready = serveReadiness({
      postgres: {
        ping: (deadlineMs) => {
          pings++
          expect(deadlineMs).toBeGreaterThan(0)
          return new Promise<void>((_resolve, reject) => {
            release = () => reject(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'))
          })
        },
      },
    })
    const asks = Array.from({ length: 10 }, () => ready())
    expect(pings).toBe(1)
    release?.()
    for (const a of await Promise.all(asks)) {
      expect(a).toEqual({
        ready: false,
        checks: { catalog: 'ok', postgres: 'failing', sandbox: 'off' },
      })
      expect(JSON.stringify(a)).not.toContain('hunter2')
    }
  })
})
