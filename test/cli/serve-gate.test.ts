import { describe, expect, it } from 'vitest'
import { createPolicyGate, gatePolicyFor, parseGatePolicy } from '../../src/cli/serve/serve-gate.js'
import {
  DEFAULT_SPOOL_RETENTION,
  isLoopbackHost,
  parseServeOptions,
} from '../../src/cli/serve/serve-options.js'
import { GateDenied, runToolGate } from '../../src/common/gate.js'
import { createTurnContext } from '../../src/common/turn-context.js'

const ctx = createTurnContext()
const skill = { id: 'word-count', version: 'v1' }

describe('serve gate policies', () => {
  it('first matching rule decides; the default applies otherwise; every decision is logged', async () => {
    const lines: string[] = []
    const gate = createPolicyGate(
      parseGatePolicy({
        default: 'deny',
        rules: [
          { tool: 'run_*', skill: 'word-*', tier: 'script', effect: 'allow' },
          { tier: 'script', effect: 'deny', reason: 'scripts need review' },
          { tier: 'lifecycle', effect: 'allow' },
        ],
      }),
      (line) => lines.push(line),
    )
    const ask = (tool: string, tier: 'script' | 'lifecycle' | 'module', s = skill) =>
      runToolGate(gate, ctx, { tool, args: {}, tier, skill: s })
    expect(await ask('run_word_count_count', 'script')).toEqual({ outcome: 'allow' })
    expect(await ask('run_other_x', 'script', { id: 'other', version: 'v1' })).toEqual({
      outcome: 'refused',
      reason: 'scripts need review',
    })
    expect(await ask('load_skill', 'lifecycle')).toEqual({ outcome: 'allow' })
    expect(await ask('convert_units', 'module')).toMatchObject({ outcome: 'refused' })
    expect(lines).toEqual([
      'gate allow run_word_count_count (script, skill word-count@v1)',
      'gate DENY run_other_x (script, skill other@v1): scripts need review',
      'gate allow load_skill (lifecycle, skill word-count@v1)',
      'gate DENY convert_units (module, skill word-count@v1): refused by the server policy',
    ])
  })

  it('deny-scripts refuses tier 3 only, with an explicit GateDenied', async () => {
    const gate = createPolicyGate(gatePolicyFor('deny-scripts'), () => undefined)
    expect(() => gate(ctx, { tool: 'run_x_y', args: {}, tier: 'script' })).toThrow(GateDenied)
    expect(
      await runToolGate(gate, ctx, { tool: 'run_x_y', args: {}, tier: 'script' }),
    ).toMatchObject({
      outcome: 'refused',
    })
    expect(await runToolGate(gate, ctx, { tool: 'json_diff', args: {}, tier: 'isolated' })).toEqual(
      {
        outcome: 'allow',
      },
    )
  })

  it('a glob matches whole names, and regex metacharacters are literal', async () => {
    const gate = createPolicyGate(
      parseGatePolicy({ rules: [{ tool: 'a.b', effect: 'deny' }] }),
      () => undefined,
    )
    expect(await runToolGate(gate, ctx, { tool: 'aXb', args: {} })).toEqual({ outcome: 'allow' })
    expect(await runToolGate(gate, ctx, { tool: 'a.b', args: {} })).toMatchObject({
      outcome: 'refused',
    })
  })

  it.each([
    [[], 'must be a JSON object'],
    [{ rules: {} }, '"rules" must be an array'],
    [{ rules: [{ effect: 'maybe' }] }, '"effect"'],
    [{ rules: [{ effect: 'deny', tier: 'kernel' }] }, '"tier"'],
    [{ rules: [{ effect: 'deny', path: '/etc' }] }, 'unknown key "path"'],
    [{ default: 'sometimes', rules: [] }, '"default"'],
  ])('rejects the malformed policy %j', (value, message) => {
    expect(() => parseGatePolicy(value)).toThrow(message)
  })
})

describe('serve options', () => {
  it('defaults: allow-all gate, stdio, scripts on, module imports off', () => {
    const o = parseServeOptions(['examples/skills'])
    expect(o).toMatchObject({
      importModules: false,
      scripts: true,
      gate: { mode: 'allow-all' },
      channel: 'auto',
    })
    expect(o.http).toBeUndefined()
    expect(o.stateDir).toMatch(/skillhost$/)
  })

  it('parses --http, --host, --gate-policy and --channel', () => {
    const o = parseServeOptions(
      [
        '--http',
        '0',
        '--host',
        '0.0.0.0',
        '--gate-policy',
        'p.json',
        '--channel',
        'inline',
        'examples/skills',
      ],
      { SKILLHOST_TOKEN: 't0k' },
    )
    expect(o.http).toEqual({
      port: 0,
      host: '0.0.0.0',
      token: 't0k',
      tokenFrom: 'env',
      insecure: false,
    })
    expect(o.gate).toMatchObject({ policyFile: expect.stringMatching(/p\.json$/) })
    expect(o.channel).toBe('inline')
  })

  it('auth beyond loopback: a token (the flag wins over the environment) or --insecure-no-auth', () => {
    const http = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      parseServeOptions(['--http', '0', ...args, 'examples/skills'], env).http
    expect(http([])).toEqual({ port: 0, host: '127.0.0.1', insecure: false })
    expect(http(['--host', '::1'])).toMatchObject({ host: '::1', insecure: false })
    expect(() => http(['--host', '0.0.0.0'])).toThrow(
      'refusing to serve on non-loopback host 0.0.0.0',
    )
    expect(() => http(['--host', '0.0.0.0'], { SKILLHOST_TOKEN: '' })).toThrow('refusing')
    expect(http(['--host', '0.0.0.0', '--token', 'f'], { SKILLHOST_TOKEN: 'e' })).toMatchObject({
      token: 'f',
      tokenFrom: 'flag',
    })
    expect(http(['--host', '10.0.0.5', '--insecure-no-auth'])).toEqual({
      port: 0,
      host: '10.0.0.5',
      insecure: true,
    })
    expect(() => http(['--insecure-no-auth', '--token', 'f'])).toThrow('not both')
    expect(() => http(['--token='])).toThrow('--token needs a non-empty value')
    expect(() => parseServeOptions(['--token', 'x', 'examples/skills'])).toThrow(
      '--token needs --http',
    )
  })

  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.2', false],
    ['127.0.0.1.example.com', false],
  ])('isLoopbackHost(%s) is %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })

  it('spool retention: removed on close by default, bounded by 7 days and 1 GiB; 0 turns a bound off', () => {
    const o = parseServeOptions(['examples/skills'])
    expect(o.durableSpool).toBe(false)
    expect(o.spoolRetention).toEqual(DEFAULT_SPOOL_RETENTION)
    expect(DEFAULT_SPOOL_RETENTION).toEqual({ maxAgeMs: 7 * 86_400_000, maxTotalBytes: 1024 ** 3 })
    const d = parseServeOptions([
      '--durable-spool',
      '--spool-max-age',
      '0.5',
      '--spool-max-size',
      '0',
      'examples/skills',
    ])
    expect(d.durableSpool).toBe(true)
    expect(d.spoolRetention).toEqual({ maxAgeMs: 43_200_000 })
    expect(() => parseServeOptions(['--spool-max-age', '-1', 'examples/skills'])).toThrow(
      '--spool-max-age needs a non-negative number',
    )
  })

  it('refuses contradictions instead of guessing', () => {
    expect(() =>
      parseServeOptions(['--gate', 'allow-all', '--gate-policy', 'p.json', 'examples/skills']),
    ).toThrow('not both')
    expect(() => parseServeOptions(['--host', '0.0.0.0', 'examples/skills'])).toThrow(
      '--host needs --http',
    )
    expect(() => parseServeOptions(['--http', '70000', 'examples/skills'])).toThrow(
      '--http needs a port',
    )
  })
})
