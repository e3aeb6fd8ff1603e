import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { type EvaluationOutcome, unwrapOutcome } from '../../src/tiers/isolated/evaluation.js'
import {
  createInProcessGuest,
  type GuestConsoleEntry,
  type IsolatedGuest,
  renderIsolatedResult,
  runIsolatedTool,
  type SkillIsolationConfig,
} from '../../src/tiers/isolated/index.js'
import { fuzzParams, guestRuns } from '../helpers/fuzz-config.js'

const ISOLATED = [
  'E_SKILL_ISOLATED_TIMEOUT',
  'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
  'E_SKILL_ISOLATED_THREW',
  'E_SKILL_ISOLATED_BAD_RESULT',
  'E_SKILL_ISOLATED_GUEST_FAILED',
  'E_ABORTED',
] as const
const MAX_RESULT_BYTES = 4096

// Object.prototype as it was before any guest output was parsed.
const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort()
function expectPrototypesUntouched() {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore)
  const probe: Record<string, unknown> = {}
  expect(probe.polluted).toBeUndefined()
  expect(probe.x).toBeUndefined()
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype)
}

// JSON text a guest might hand back: valid, almost valid, hostile.
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'x'),
)
const jsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .array(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 5 })
    .map((e) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
  fc.constantFrom(
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '[{"__proto__":null}]',
    '1e999',
    '-1e999',
    '123456789012345678901234567890123456789',
    '0.0000000000000000000000000000001',
    '-0',
    '"\\ud800"',
    '"\u2028"',
    'NaN',
    'undefined',
    '',
    ' ',
    '{',
    '[1,]',
    "{'a':1}",
    '"a" "b"',
    '\ufeff1',
    'x'.repeat(MAX_RESULT_BYTES + 1),
    `"${'é'.repeat(MAX_RESULT_BYTES / 2)}"`,
  ),
  fc.integer({ min: 1, max: 20_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  fc.integer({ min: 1, max: 20_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.string({ maxLength: 40 }),
)
const consoleEntry: fc.Arbitrary<GuestConsoleEntry> = fc.record({
  level: fc.constantFrom('log', 'info', 'warn', 'error', 'debug'),
  text: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('"}],"result":1,"x":[{"', '\u0000')),
})
const consoleList = fc.array(consoleEntry, { maxLength: 3 })

/** A guest that returns `run`'s value (or throws it) without evaluating anything. */
function fakeConfig(run: () => Promise<unknown>): SkillIsolationConfig {
  const guest: IsolatedGuest = { run: run as IsolatedGuest['run'], kill: () => {} }
  return {
    resolveGuest: async () => guest,
    maxTimeoutSeconds: 5,
    defaultTimeoutSeconds: 5,
    limits: { maxResultBytes: MAX_RESULT_BYTES },
  }
}
const probeTool = { name: 'probe', description: 'fuzz', source: 'async () => null' }

/**
 * Runs one call; a rejection must carry one of `codes`. On success the result
 * is valid JSON within the cap, and the rendered text is valid JSON holding it.
 */
async function expectSettled(
  config: SkillIsolationConfig,
  codes: readonly string[],
  args: unknown = {},
) {
  try {
    const r = await runIsolatedTool(config, probeTool, args)
    expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(MAX_RESULT_BYTES)
    const value = JSON.parse(r.json)
    const rendered = JSON.parse(renderIsolatedResult(r))
    if (r.console.length > 0 || r.consoleTruncated) {
      expect(rendered.result).toEqual(value)
      expect(rendered.console).toEqual(r.console.map(({ level, text }) => ({ level, text })))
    } else expect(rendered).toEqual(value)
    return r
  } catch (err) {
    expect(SkillHostError.isInstance(err), String(err)).toBe(true)
    expect(codes).toContain((err as SkillHostError).code)
    return undefined
  } finally {
    expectPrototypesUntouched()
  }
}

describe('fuzz: isolated-result JSON', () => {
  it('any result text from a guest: valid capped JSON, or E_SKILL_ISOLATED_BAD_RESULT', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, consoleList, fc.boolean(), async (json, entries, truncated) => {
        const config = fakeConfig(async () => ({
          json,
          console: entries,
          consoleTruncated: truncated,
        }))
        const r = await expectSettled(config, ['E_SKILL_ISOLATED_BAD_RESULT'])
        if (r) expect(r.json).toBe(json) // passed through as text, never re-serialized
      }),
      fuzzParams,
    )
  })

  it('any outcome across the worker boundary: unwrapped, or one of its isolated codes', async () => {
    const outcome: fc.Arbitrary<EvaluationOutcome> = fc.oneof(
      fc.record({
        ok: fc.constant(true as const),
        json: jsonText,
        console: consoleList,
        consoleTruncated: fc.boolean(),
      }),
      fc.record({
        ok: fc.constant(false as const),
        code: fc.constantFrom(...ISOLATED),
        message: fc.string({ maxLength: 40 }),
        console: consoleList,
        consoleTruncated: fc.boolean(),
      }),
    )
    await fc.assert(
      fc.asyncProperty(outcome, async (o) => {
        // A structured clone, as postMessage would deliver it.
        const delivered = structuredClone(o)
        await expectSettled(
          fakeConfig(async () => unwrapOutcome(delivered)),
          o.ok ? ['E_SKILL_ISOLATED_BAD_RESULT'] : [o.code],
        )
      }),
      fuzzParams,
    )
  })

  // Each case is a real QuickJS evaluation, so this property runs a tenth as many cases.
  const resolveGuest = createInProcessGuest()
  it('a real guest returning parsed hostile JSON or echoing hostile args: documented codes only (a tenth of the runs)', async () => {
    const config: SkillIsolationConfig = {
      resolveGuest,
      maxTimeoutSeconds: 5,
      defaultTimeoutSeconds: 5,
      limits: { maxResultBytes: MAX_RESULT_BYTES },
    }
    const args = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
    await fc.assert(
      fc.asyncProperty(jsonText, args, fc.boolean(), async (text, a, echo) => {
        const source = echo
          ? 'async (args) => args'
          : `async () => JSON.parse(${JSON.stringify(text)})`
        try {
          const r = await runIsolatedTool(config, { ...probeTool, source }, a)
          expect(Buffer.byteLength(r.json)).toBeLessThanOrEqual(MAX_RESULT_BYTES)
          JSON.parse(renderIsolatedResult(r))
          if (echo) expect(JSON.parse(r.json)).toEqual(JSON.parse(JSON.stringify(a)))
        } catch (err) {
          expect(SkillHostError.isInstance(err), String(err)).toBe(true)
          expect([...ISOLATED, 'E_TOOL_INVALID_ARGS']).toContain((err as SkillHostError).code)
        } finally {
          expectPrototypesUntouched()
        }
      }),
      { ...fuzzParams, numRuns: guestRuns },
    )
  })
})
