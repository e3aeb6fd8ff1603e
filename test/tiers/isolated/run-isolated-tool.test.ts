import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderError, SkillHostError } from '../../../src/common/errors.js'
import {
  createQuickJsGuest,
  type GuestResolver,
  type IsolatedGuest,
  type QuickJsGuestPool,
  renderIsolatedResult,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../../src/tiers/isolated/index.js'
import { expectCode, tool } from '../../helpers/isolated.js'

let pool: QuickJsGuestPool
let config: SkillIsolationConfig
const seen: { args: unknown; aborted: () => boolean }[] = []

beforeAll(async () => {
  pool = createQuickJsGuest({ poolSize: 2 })
  await pool.warm()
  config = {
    resolveGuest: pool.resolveGuest,
    // A deadline no machine is that slow for: it covers a worker's start, which a
    // loaded machine stretches; vitest's 30 s test timeout still reports a hang.
    maxTimeoutSeconds: 20,
    defaultTimeoutSeconds: 20,
    globals: {
      lookup: async (args) => ({ found: args, at: 'host' }),
      record: async (args, { signal }) => {
        seen.push({ args, aborted: () => signal.aborted })
        return undefined
      },
      broken: async () => {
        throw new Error('secret at /home/user/.ssh/id_rsa')
      },
      refusing: async () => {
        throw new SkillHostError('E_TOOL_DENIED', 'lookup refused for this key', {
          person: 'lookup refused: /etc/shadow is off limits',
        })
      },
      cyclic: async () => {
        const o: Record<string, unknown> = {}
        o.self = o
        return o
      },
    },
    modules: {
      math: 'export const double = (n) => n * 2',
      uses: "import { double } from 'math'; export const quad = (n) => double(double(n))",
    },
  }
})

afterAll(async () => {
  await pool.dispose()
})

describe('runIsolatedTool', () => {
  it('returns the JSON text of the result', async () => {
    const r = await runIsolatedTool(config, tool('async (args) => ({ sum: args.a + args.b })'), {
      a: 2,
      b: 3,
    })
    expect(r.json).toBe('{"sum":5}')
    expect(r.console).toEqual([])
    expect(renderIsolatedResult(r)).toBe('{"sum":5}')
  })

  it('returns null for undefined and accepts a non-async arrow', async () => {
    expect((await runIsolatedTool(config, tool('async () => {}'), {})).json).toBe('null')
    expect((await runIsolatedTool(config, tool('(args) => args.x'), { x: [1] })).json).toBe('[1]')
    // A formatter's statement semicolons around the expression are tolerated.
    expect((await runIsolatedTool(config, tool(';async () => 7;\n'), {})).json).toBe('7')
  })

  it('validates arguments against params before any guest runs', async () => {
    const params = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    }
    await expectCode(
      runIsolatedTool(config, tool('async (a) => a.n', params), { n: 'x' }),
      'E_TOOL_INVALID_ARGS',
    )
    await expectCode(
      runIsolatedTool(config, tool('async (a) => a.n', params), {}),
      'E_TOOL_INVALID_ARGS',
    )
    expect((await runIsolatedTool(config, tool('async (a) => a.n', params), { n: 4 })).json).toBe(
      '4',
    )
  })

  it('refuses arguments over maxArgsBytes', async () => {
    const small = { ...config, limits: { maxArgsBytes: 100 } }
    await expectCode(
      runIsolatedTool(small, tool('async (a) => 1'), { s: 'x'.repeat(200) }),
      'E_TOOL_INVALID_ARGS',
    )
  })

  it('captures console output with the result, within caps', async () => {
    const r = await runIsolatedTool(
      config,
      tool(
        'async () => { console.log("a", 1, { b: 2 }); console.warn("w"); console.error(new Error("e").message); return 1 }',
      ),
      {},
    )
    expect(r.console).toEqual([
      { level: 'log', text: 'a 1 {"b":2}' },
      { level: 'warn', text: 'w' },
      { level: 'error', text: 'e' },
    ])
    expect(JSON.parse(renderIsolatedResult(r))).toEqual({
      result: 1,
      console: r.console,
      consoleTruncated: false,
    })
    const capped = { ...config, limits: { maxConsoleEntries: 3, maxConsoleBytes: 10 } }
    const flood = await runIsolatedTool(
      capped,
      tool('async () => { for (let i = 0; i < 1000; i++) console.log("line " + i); return 2 }'),
      {},
    )
    expect(flood.consoleTruncated).toBe(true)
    expect(flood.console.length).toBeLessThanOrEqual(3)
    expect(flood.console.map((e) => e.text).join('').length).toBeLessThanOrEqual(10)
  })

  it('calls declared host globals with JSON arguments', async () => {
    const r = await runIsolatedTool(config, tool('async (a) => await lookup({ q: a.q })'), {
      q: 'k',
    })
    expect(JSON.parse(r.json)).toEqual({ found: { q: 'k' }, at: 'host' })
  })

  it('shows the guest only safe messages from failing globals', async () => {
    const r = await runIsolatedTool(
      config,
      tool(`async () => {
        const out = []
        for (const f of [broken, refusing, cyclic]) { try { await f() } catch (e) { out.push(e.message) } }
        try { await notDeclared() } catch (e) { out.push(e.name) }
        return out
      }`),
      {},
    )
    const messages = JSON.parse(r.json) as string[]
    expect(messages[0]).toBe("Host function 'broken' failed.")
    // The model-safe message crosses; the host-only person text never does.
    expect(messages[1]).toBe('lookup refused for this key')
    expect(messages[2]).toMatch(/not JSON/)
    expect(messages[3]).toBe('ReferenceError')
    expect(r.json).not.toMatch(/ssh|shadow/)
  })

  it('loads declared modules by name, and only those', async () => {
    const r = await runIsolatedTool(config, tool("async (a) => (await import('uses')).quad(a.n)"), {
      n: 3,
    })
    expect(r.json).toBe('12')
    const e = await expectCode(
      runIsolatedTool(config, tool("async () => import('fs')"), {}),
      'E_SKILL_ISOLATED_THREW',
    )
    expect(e.message).toMatch(/not declared/)
  })

  it('reports the guest own error message, capped, under E_SKILL_ISOLATED_THREW', async () => {
    const e = await expectCode(
      runIsolatedTool(config, tool('async () => { throw new RangeError("nope") }'), {}),
      'E_SKILL_ISOLATED_THREW',
    )
    expect(e.message).toBe('RangeError: nope')
    const long = await expectCode(
      runIsolatedTool(config, tool('async () => { throw new Error("x".repeat(50000)) }'), {}),
      'E_SKILL_ISOLATED_THREW',
    )
    expect(long.message.length).toBeLessThan(1_100)
    await expectCode(runIsolatedTool(config, tool('async () => {'), {}), 'E_SKILL_ISOLATED_THREW')
    await expectCode(runIsolatedTool(config, tool('42'), {}), 'E_SKILL_ISOLATED_THREW')
  })

  it('never leaks host paths or stacks in any message', async () => {
    const e = await expectCode(
      runIsolatedTool(config, tool('async () => { null.x }'), {}),
      'E_SKILL_ISOLATED_THREW',
    )
    expect(renderError(e)).not.toMatch(/\/work\/|node_modules|at .*\.js:\d+/)
  })

  it('refuses a result over maxResultBytes with a clear error', async () => {
    const small = { ...config, limits: { maxResultBytes: 1000 } }
    const e = await expectCode(
      runIsolatedTool(small, tool('async () => "x".repeat(2000)'), {}),
      'E_SKILL_ISOLATED_BAD_RESULT',
    )
    expect(e.message).toMatch(/larger than 1000 bytes/)
    // Multi-byte text is measured in UTF-8 bytes, not characters.
    await expectCode(
      runIsolatedTool(small, tool('async () => "é".repeat(600)'), {}),
      'E_SKILL_ISOLATED_BAD_RESULT',
    )
  })

  it('requires a guest resolver', async () => {
    const { resolveGuest: _none, ...noGuest } = config
    await expectCode(runIsolatedTool(noGuest, tool('async () => 1'), {}), 'E_INVALID_SKILLS_CONFIG')
  })

  it('fails fast on an already aborted signal', async () => {
    const ac = new AbortController()
    ac.abort()
    await expectCode(
      runIsolatedTool(config, tool('async () => 1'), {}, { signal: ac.signal }),
      'E_ABORTED',
    )
  })

  it('aborts in the middle of a host call: the guest dies, the host call sees the abort', async () => {
    const ac = new AbortController()
    let hostSignal: AbortSignal | undefined
    const hanging: SkillIsolationConfig = {
      ...config,
      globals: {
        wait: (_args, { signal }) => {
          hostSignal = signal
          setTimeout(() => ac.abort(), 50)
          return new Promise(() => {})
        },
      },
    }
    await expectCode(
      runIsolatedTool(hanging, tool('async () => await wait()'), {}, { signal: ac.signal }),
      'E_ABORTED',
    )
    expect(hostSignal?.aborted).toBe(true)
    expect((await runIsolatedTool(config, tool('async () => "next"'), {})).json).toBe('"next"')
  })
})

describe('the guest seam', () => {
  const fakeConfig = (guest: () => IsolatedGuest): SkillIsolationConfig => ({
    maxTimeoutSeconds: 1,
    defaultTimeoutSeconds: 1,
    resolveGuest: (async () => guest()) as GuestResolver,
  })

  it('kills a guest that ignores its deadline and reports a timeout', async () => {
    let killed = false
    const e = await expectCode(
      runIsolatedTool(
        fakeConfig(() => ({
          run: () => new Promise(() => {}),
          kill: () => {
            killed = true
          },
        })),
        tool('x'),
        {},
      ),
      'E_SKILL_ISOLATED_TIMEOUT',
    )
    expect(killed).toBe(true)
    expect(e.message).toMatch(/timeout/)
  })

  it('refuses invalid JSON text from a guest and maps foreign errors to GUEST_FAILED', async () => {
    const ok = (json: string) => () => ({
      run: async () => ({ json, console: [], consoleTruncated: false }),
      kill() {},
    })
    await expectCode(
      runIsolatedTool(fakeConfig(ok('{nope')), tool('x'), {}),
      'E_SKILL_ISOLATED_BAD_RESULT',
    )
    const e = await expectCode(
      runIsolatedTool(
        fakeConfig(() => ({
          run: async () => {
            throw new Error('/secret/path')
          },
          kill() {},
        })),
        tool('x'),
        {},
      ),
      'E_SKILL_ISOLATED_GUEST_FAILED',
    )
    expect(e.message).not.toMatch(/secret/)
  })
})
