import { describe, expect, it } from 'vitest'
import { createPolicyGate, gatePolicyFor, parseGatePolicy } from '../../src/cli/serve-gate.js'
import { parseServeOptions } from '../../src/cli/serve-options.js'
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
    expect(o).toMatchObject({ importModules: false, scripts: true, gate: { mode: 'allow-all' } })
    expect(o.http).toBeUndefined()
    expect(o.stateDir).toMatch(/skillhost$/)
  })

  it('parses --http, --host, --gate-policy and --channel', () => {
    const o = parseServeOptions([
      '--http',
      '0',
      '--host',
      '0.0.0.0',
      '--gate-policy',
      'p.json',
      '--channel',
      'inline',
      'examples/skills',
    ])
    expect(o.http).toEqual({ port: 0, host: '0.0.0.0' })
    expect(o.gate).toMatchObject({ policyFile: expect.stringMatching(/p\.json$/) })
    expect(o.channel).toBe('inline')
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
