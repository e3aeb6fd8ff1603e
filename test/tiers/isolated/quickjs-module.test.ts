import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import {
  createInProcessGuest,
  createQuickJsGuest,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import {
  compileQuickJsWasm,
  GUEST_INITIAL_PAGES,
  lowerMemoryMinimum,
  QuickJsInstanceReserve,
} from '../../../src/tiers/isolated/quickjs-module.js'

const MiB = 1024 * 1024

async function shippedBinary(): Promise<Buffer> {
  const require = createRequire(import.meta.url)
  return readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))
}

describe('lowerMemoryMinimum', () => {
  it("lowers the shipped binary's memory minimum without changing its length", async () => {
    const bytes = await shippedBinary()
    const before = Buffer.from(bytes)
    expect(lowerMemoryMinimum(bytes, GUEST_INITIAL_PAGES)).toBe(GUEST_INITIAL_PAGES)
    expect(bytes.length).toBe(before.length)
    // Only the minimum's bytes changed.
    const changed = [...bytes.keys()].filter((i) => bytes[i] !== before[i])
    expect(changed.length).toBeGreaterThan(0)
    expect(changed.length).toBeLessThanOrEqual(5)
    // Lowering again finds the new minimum and leaves it alone.
    expect(lowerMemoryMinimum(bytes, GUEST_INITIAL_PAGES)).toBe(GUEST_INITIAL_PAGES)
    expect(lowerMemoryMinimum(bytes, 1024)).toBe(GUEST_INITIAL_PAGES)
  })

  it('leaves bytes it does not understand alone', () => {
    const junk = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 2, 200])
    expect(lowerMemoryMinimum(junk, 96)).toBeUndefined()
    expect([...junk]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 2, 200])
    // A module with an import section that is cut short.
    const truncated = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 2, 9, 1, 1, 0x61])
    expect(lowerMemoryMinimum(truncated, 96)).toBeUndefined()
  })
})

describe('QuickJsInstanceReserve', () => {
  it('hands out a prepared instance in a small fresh memory, never the same one twice', async () => {
    const binary = await compileQuickJsWasm()
    expect(binary.initialPages).toBe(GUEST_INITIAL_PAGES)
    const reserve = new QuickJsInstanceReserve(binary)
    await reserve.refill(32 * MiB)
    const first = await reserve.take(32 * MiB)
    const second = await reserve.take(32 * MiB)
    expect(first).not.toBe(second)
    expect(first.instance.memory).not.toBe(second.instance.memory)
    expect(first.context).not.toBe(second.context)
    expect(first.instance.memory.buffer.byteLength).toBe(GUEST_INITIAL_PAGES * 64 * 1024)
    // The prelude already ran: its hardening is in place before any guest code.
    expect(
      first.context.dump(first.context.unwrapResult(first.context.evalCode('typeof Math.random'))),
    ).toBe('undefined')
  })
})

describe('a fresh context per call', () => {
  const probe = {
    name: 'probe',
    description: 'test tool',
    source:
      'async () => { const seen = globalThis.mark; globalThis.mark = 1; console.log("x"); return seen ?? null }',
  }

  it('never carries guest state or console lines into the next call (pool and in-process)', async () => {
    await using pool = createQuickJsGuest({ poolSize: 1 })
    // Generous deadlines: the calls must succeed however loaded the machine is
    // (the first one includes a worker's start).
    const configs: SkillIsolationConfig[] = [
      { resolveGuest: pool.resolveGuest, maxTimeoutSeconds: 20, defaultTimeoutSeconds: 20 },
      { resolveGuest: createInProcessGuest(), maxTimeoutSeconds: 20, defaultTimeoutSeconds: 20 },
    ]
    for (const config of configs) {
      for (let i = 0; i < 3; i++) {
        const r = await runIsolatedTool(config, probe, {})
        expect(r.json).toBe('null')
        expect(r.console).toEqual([{ level: 'log', text: 'x' }])
      }
    }
    await pool.dispose()
  })
})
