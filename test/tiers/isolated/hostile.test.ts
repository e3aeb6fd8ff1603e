import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SkillHostErrorCode } from '../../../src/common/errors.js'
import {
  createQuickJsGuest,
  type QuickJsGuestPool,
  renderIsolatedResult,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { expectCode, rssMiB, tool } from '../../helpers/isolated.js'

// Every case is followed by a normal call that must succeed, and the host's
// RSS is checked against a generous bound at the end. No durations are asserted.

let pool: QuickJsGuestPool
let config: SkillIsolationConfig
let runaway: SkillIsolationConfig
let baselineRss = 0
let pings = 0

beforeAll(async () => {
  // One owner floods this pool on purpose: let it use both workers and queue 100.
  pool = createQuickJsGuest({
    poolSize: 2,
    fairShare: { maxActivePerOwner: 2, maxQueued: 128, maxQueuedPerOwner: 128 },
  })
  await pool.warm()
  // Calls that must succeed (or fail by a cap, not the clock) get a deadline no
  // machine is that slow for: it covers the wait for a free guest and a worker's
  // start, which a loaded machine stretches. vitest's 30 s test timeout still
  // reports a real hang. Only runaways, whose deadline is certain because
  // they never end, get 1 s (`runaway`).
  config = {
    resolveGuest: pool.resolveGuest,
    maxTimeoutSeconds: 20,
    defaultTimeoutSeconds: 20,
    globals: {
      ping: async () => {
        pings++
        return 'pong'
      },
    },
  }
  runaway = { ...config, maxTimeoutSeconds: 1, defaultTimeoutSeconds: 1 }
  baselineRss = rssMiB()
})

afterAll(async () => {
  await pool.dispose()
  expect(pool.stats().alive).toBe(0)
})

async function normalCallWorks(): Promise<void> {
  const r = await runIsolatedTool(config, tool('async (a) => a.n * 2'), { n: 21 })
  expect(r.json).toBe('42')
}

const cases: [string, string, SkillHostErrorCode | SkillHostErrorCode[]][] = [
  ['busy loop', 'async () => { while (true) {} }', 'E_SKILL_ISOLATED_TIMEOUT'],
  ['microtask loop', 'async () => { for (;;) await null }', 'E_SKILL_ISOLATED_TIMEOUT'],
  [
    'loop awaiting a host global',
    'async () => { for (;;) { try { await ping() } catch {} } }',
    'E_SKILL_ISOLATED_TIMEOUT',
  ],
  [
    'catastrophic regex',
    'async () => /^(a+)+$/.test("a".repeat(64) + "b")',
    'E_SKILL_ISOLATED_TIMEOUT',
  ],
  [
    'array bomb',
    'async () => { const a = []; for (;;) a.push([1, 2, 3, 4]) }',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'Map bomb',
    'async () => { const m = new Map(); for (let i = 0; ; i++) m.set(i, { i }) }',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'string doubling bomb',
    'async () => { let s = "x"; for (;;) s += s }',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'flat string bomb',
    'async () => "x".repeat(2 ** 27).length',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'typed-array bomb',
    'async () => { const k = []; for (;;) k.push(new Float64Array(1 << 20)) }',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'one huge typed array',
    'async () => new Uint8Array(2 ** 30).length',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'new Array(2**30).fill(0)',
    'async () => new Array(2 ** 30).fill(0).length',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'huge JSON.parse',
    'async () => JSON.parse("[" + "1,".repeat(2e7) + "1]").length',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  [
    'deep recursion',
    'async () => { const f = (n) => f(n + 1) + 1; return f(0) }',
    'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  ],
  // QuickJS checks JSON cycles linearly: deep nesting burns CPU in one builtin
  // until the deadline, or overflows the stack first; either way it is contained.
  [
    'deep nesting through JSON.stringify',
    'async () => { let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; return o }',
    ['E_SKILL_ISOLATED_RESOURCE_EXHAUSTED', 'E_SKILL_ISOLATED_TIMEOUT'],
  ],
  [
    'constructor chain to process',
    'async function () { return this.constructor.constructor("return process")() }',
    'E_SKILL_ISOLATED_THREW',
  ],
  [
    'async constructor chain to require',
    'async () => (async () => {}).constructor("return require")()()',
    'E_SKILL_ISOLATED_THREW',
  ],
  [
    'Function to globalThis.process',
    'async () => Function("return globalThis")().process.env',
    'E_SKILL_ISOLATED_THREW',
  ],
  ['import a host module', 'async () => import("node:fs")', 'E_SKILL_ISOLATED_THREW'],
  [
    'cyclic result',
    'async () => { const a = {}; a.self = a; return a }',
    'E_SKILL_ISOLATED_BAD_RESULT',
  ],
  ['function result', 'async () => ({ f() {} })', 'E_SKILL_ISOLATED_BAD_RESULT'],
  ['BigInt result', 'async () => ({ n: 10n })', 'E_SKILL_ISOLATED_BAD_RESULT'],
  ['2 MiB result', 'async () => "x".repeat(2 * 1024 * 1024)', 'E_SKILL_ISOLATED_BAD_RESULT'],
  [
    '100 MB result',
    'async () => { const m = "x".repeat(1 << 20); let s = ""; for (let i = 0; i < 100; i++) s += m; return s }',
    ['E_SKILL_ISOLATED_BAD_RESULT', 'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED'],
  ],
  // A promise that can never settle still ran until its deadline: a timeout (issue 10 item 15).
  ['never-settling promise', 'async () => new Promise(() => {})', 'E_SKILL_ISOLATED_TIMEOUT'],
  [
    'then on a never-settling promise',
    'async () => { const p = new Promise(() => {}); return p.then((x) => x) }',
    'E_SKILL_ISOLATED_TIMEOUT',
  ],
  [
    'self-feeding then chain',
    'async () => { let p = Promise.resolve(); const loop = () => (p = p.then(loop)); loop(); return new Promise(() => {}) }',
    'E_SKILL_ISOLATED_TIMEOUT',
  ],
]

describe('hostile guests', () => {
  it.each(cases)('%s is contained', async (_name, source, codes) => {
    const expected = Array.isArray(codes) ? codes : [codes]
    const deadline = expected.includes('E_SKILL_ISOLATED_TIMEOUT') ? runaway : config
    const err = await runIsolatedTool(deadline, tool(source), {}).then(
      () => undefined,
      (e: { code?: string }) => e,
    )
    expect(err?.code, `${err?.code}: ${(err as Error | undefined)?.message}`).toBeOneOf(expected)
    await normalCallWorks()
  })

  it('sees none of the ambient capabilities', async () => {
    const r = await runIsolatedTool(
      config,
      tool(`async () => ({
        Date: typeof Date, random: typeof Math.random, fetch: typeof fetch, require: typeof require,
        process: typeof process, WebAssembly: typeof globalThis.WebAssembly,
        SharedArrayBuffer: typeof SharedArrayBuffer, Atomics: typeof Atomics,
        setTimeout: typeof setTimeout, setInterval: typeof setInterval, queueMicrotask: typeof queueMicrotask,
        Buffer: typeof Buffer, module: typeof module, os: typeof os, std: typeof std,
        globals: Object.getOwnPropertyNames(globalThis).filter((k) => /^(process|require|fetch|Date|WebAssembly)$/.test(k)),
      })`),
      {},
    )
    const seen = JSON.parse(r.json) as Record<string, unknown>
    for (const [name, kind] of Object.entries(seen)) {
      if (name === 'globals') expect(kind).toEqual([])
      else expect(kind, name).toBe('undefined')
    }
  })

  it('cannot wait on Atomics or reach them through a prototype', async () => {
    const r = await runIsolatedTool(
      config,
      tool(
        'async () => [typeof Atomics, typeof globalThis["Atomics"], typeof Object.getPrototypeOf(new ArrayBuffer(8)).constructor.prototype.transfer]',
      ),
      {},
    )
    expect(JSON.parse(r.json).slice(0, 2)).toEqual(['undefined', 'undefined'])
  })

  it('keeps prototype-pollution payloads as plain data', async () => {
    const r = await runIsolatedTool(
      config,
      tool(`async () => {
        Object.prototype.polluted = 'guest-only'
        return [JSON.parse('{"__proto__": {"polluted": true}}'), { ['__proto__']: { polluted: true } }, { constructor: { prototype: { polluted: true } } }]
      }`),
      {},
    )
    expect(r.json).toContain('"__proto__"')
    const parsed = JSON.parse(renderIsolatedResult(r))
    expect(Object.getPrototypeOf(parsed[0])).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })

  it('survives a log flood: the console is capped', async () => {
    const r = await runIsolatedTool(
      config,
      tool(
        'async () => { for (let i = 0; i < 5000; i++) console.log("line " + i + " " + "x".repeat(100)); return "done" }',
      ),
      {},
    )
    expect(r.json).toBe('"done"')
    expect(r.consoleTruncated).toBe(true)
    expect(r.console.reduce((n, e) => n + Buffer.byteLength(e.text), 0)).toBeLessThanOrEqual(
      64 * 1024,
    )
    // An endless flood is just a runaway: it is stopped at its deadline.
    await expectCode(
      runIsolatedTool(
        runaway,
        tool('async () => { for (;;) console.log("x".repeat(100000)) }'),
        {},
      ),
      'E_SKILL_ISOLATED_TIMEOUT',
    )
    await normalCallWorks()
  })

  it('survives console.log spread over a huge array', async () => {
    const r = await runIsolatedTool(
      config,
      tool(
        'async () => { const big = "x".repeat(60000); console.log(...new Array(5000).fill(big)); return 1 }',
      ),
      {},
    )
    expect(r.json).toBe('1')
    expect(r.consoleTruncated).toBe(true)
  })

  it('caps host calls in flight and in total', async () => {
    pings = 0
    const burst = await runIsolatedTool(
      config,
      tool(`async () => {
        const calls = []
        for (let i = 0; i < 200; i++) calls.push(ping().then(() => 'ok', () => 'refused'))
        return (await Promise.all(calls)).filter((r) => r === 'refused').length
      }`),
      {},
    )
    expect(Number(burst.json)).toBeGreaterThanOrEqual(200 - 32)
    expect(pings).toBeLessThanOrEqual(32)
    const capped = { ...config, limits: { maxHostCalls: 5 } }
    const total = await runIsolatedTool(
      capped,
      tool(
        'async () => { let n = 0; for (let i = 0; i < 20; i++) { try { await ping(); n++ } catch {} } return n }',
      ),
      {},
    )
    expect(total.json).toBe('5')
  })

  it('a kill never takes other calls down', async () => {
    const killed = runIsolatedTool(
      runaway,
      tool('async () => /^(a+)+$/.test("a".repeat(64) + "b")'),
      {},
    )
    const normal = Array.from({ length: 10 }, (_, i) =>
      runIsolatedTool(config, tool('async (a) => a.i'), { i }),
    )
    const results = await Promise.all(normal)
    expect(results.map((r) => r.json)).toEqual(Array.from({ length: 10 }, (_, i) => String(i)))
    await expectCode(killed, 'E_SKILL_ISOLATED_TIMEOUT')
    await normalCallWorks()
  })

  // Each call's deadline covers its wait in the queue: with the generous
  // `config`, the 100th call may wait as long as a loaded machine needs.
  it('runs 100 concurrent calls on a pool of 2 without leaking workers', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        runIsolatedTool(config, tool('async (a) => a.i * 3'), { i }),
      ),
    )
    expect(results.map((r) => Number(r.json))).toEqual(Array.from({ length: 100 }, (_, i) => i * 3))
    const stats = pool.stats()
    expect(stats.alive).toBeLessThanOrEqual(2)
    expect(stats.busy).toBe(0)
    expect(stats.waiting).toBe(0)
  })

  it('kept the host bounded', () => {
    expect(rssMiB() - baselineRss).toBeLessThan(300)
  })
})
