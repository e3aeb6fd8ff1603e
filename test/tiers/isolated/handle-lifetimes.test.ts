import { describe, expect, it } from 'vitest'
import { evaluateInQuickJs } from '../../../src/tiers/isolated/evaluate-in-quickjs.js'
import type { EvaluationRequest } from '../../../src/tiers/isolated/evaluation.js'
import { resolveIsolationLimits } from '../../../src/tiers/isolated/limits.js'
import {
  compileQuickJsWasm,
  type FreshQuickJs,
  prepareFreshQuickJs,
} from '../../../src/tiers/isolated/quickjs-module.js'

// In production every evaluation gets a fresh instance that is dropped whole,
// which would hide a handle leak. Here one prepared guest serves many
// evaluations, so whatever an evaluation fails to free piles up in its
// runtime, where QuickJS's own accounting shows it. QuickJS frees by
// reference count at once; none of these cases builds a cycle (a closure
// that calls itself would, and would wait for QuickJS's GC), so a clean run
// leaves the counts exactly where they were.

const limits = resolveIsolationLimits({ maxArgsBytes: 1024, maxHostCalls: 50 })

type Case = [expected: string, source: string, extra?: () => Partial<EvaluationRequest>]

const CASES: Case[] = [
  ['ok', 'async (a) => { console.log("in", a, [1, 2]); const r = await echo(a); return { r } }'],
  ['ok', 'async () => { try { await fail(1) } catch (e) { return e.message } }'],
  // Refused before the host is asked: arguments too large, too many at once, too many in all.
  ['ok', 'async () => { try { await echo("x".repeat(5000)) } catch (e) { return e.message } }'],
  ['ok', 'async () => (await Promise.allSettled(Array.from({ length: 40 }, echo))).length'],
  ['ok', 'async () => { for (let i = 0; i < 60; i++) await echo(i).catch(() => {}) }'],
  ['ok', 'async () => { console.log("x".repeat(100000), { toJSON() { throw 1 } }) }'],
  ['E_SKILL_ISOLATED_THREW', 'async () => { throw new Error("boom") }'],
  ['E_SKILL_ISOLATED_THREW', 'async () => { throw { get message() { throw 1 } } }'],
  ['E_SKILL_ISOLATED_THREW', 'async () => { await fail({}) }'],
  ['E_SKILL_ISOLATED_THREW', 'async () => {'],
  ['E_SKILL_ISOLATED_BAD_RESULT', 'async () => ({ f() {} })'],
  ['E_SKILL_ISOLATED_RESOURCE_EXHAUSTED', 'async () => { globalThis.deep = () => deep(); deep() }'],
  // A host call the host never answers, at the deadline and on a stop.
  ['E_SKILL_ISOLATED_TIMEOUT', 'async () => { echo(1); await hang() }', () => ({ timeoutMs: 20 })],
  ['E_ABORTED', 'async () => { await stop() }', stopOnCall],
  ['E_SKILL_ISOLATED_TIMEOUT', 'async () => { for (;;) {} }', () => ({ timeoutMs: 20 })],
]

function stopOnCall(): Partial<EvaluationRequest> {
  const controller = new AbortController()
  return {
    stop: controller.signal,
    callGlobal: () => {
      controller.abort()
      return new Promise<never>(() => {})
    },
  }
}

async function run(fresh: FreshQuickJs, [, source, extra]: Case): Promise<string> {
  const outcome = await evaluateInQuickJs({
    instances: { take: async () => fresh },
    source,
    argsJson: '{"n":1}',
    timeoutMs: 5_000,
    globals: ['echo', 'fail', 'hang', 'stop'],
    modules: {},
    limits,
    callGlobal: async (name, argsJson) => {
      if (name === 'fail') throw new Error('host says no')
      if (name === 'hang') return new Promise<never>(() => {})
      return argsJson
    },
    ...extra?.(),
  })
  return outcome.ok ? 'ok' : outcome.code
}

/** Allocations and objects alive in the guest's runtime. */
function counts(fresh: FreshQuickJs): { allocations: number; objects: number } {
  const handle = fresh.runtime.computeMemoryUsage()
  const usage = fresh.context.dump(handle) as Record<string, number>
  handle.dispose()
  return { allocations: usage.memory_used_count as number, objects: usage.obj_count as number }
}

async function round(fresh: FreshQuickJs, cases: Case[]): Promise<void> {
  for (const c of cases) expect(await run(fresh, c), c[1]).toBe(c[0])
}

/** Runs `cases` round after round in one guest; the runtime must not grow, and must free clean. */
async function expectNoLeak(cases: Case[]): Promise<void> {
  const fresh = await prepareFreshQuickJs(await compileQuickJsWasm(), limits.memoryBytes)
  // The first round interns atoms and shapes and creates the context
  // `computeMemoryUsage` needs; nothing after it may add to the runtime.
  await round(fresh, cases)
  const before = counts(fresh)
  for (let i = 0; i < 5; i++) await round(fresh, cases)
  expect(counts(fresh)).toEqual(before)
  // Freeing a runtime aborts while any object is still referenced, e.g.
  // by a handle an evaluation forgot: this throws on a leak of any size.
  expect(() => fresh.scope.dispose()).not.toThrow()
  expect(fresh.runtime.alive).toBe(false)
}

describe('QuickJS handle lifetimes', () => {
  it('frees every handle an evaluation makes, on every way it ends', async () => {
    await expectNoLeak(CASES)
  })

  // On its own guest: once the cap was hit, an undescribable throw in the
  // same guest would count as out of memory (see `capReached`).
  it('frees them when the guest hits its memory cap', async () => {
    await expectNoLeak([
      [
        'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
        'async () => new Uint8Array(40 * 1024 * 1024).length',
      ],
      [
        'E_SKILL_ISOLATED_RESOURCE_EXHAUSTED',
        'async () => { const a = []; for (;;) a.push("x".repeat(1e5) + a.length) }',
      ],
    ])
  })

  it('the same check fails on a leaked handle (the test can fail)', async () => {
    const fresh = await prepareFreshQuickJs(await compileQuickJsWasm(), limits.memoryBytes)
    await round(fresh, CASES)
    const before = counts(fresh)
    fresh.context.newObject()
    expect(counts(fresh).objects).toBe(before.objects + 1)
    expect(() => fresh.scope.dispose()).toThrow(/gc_obj_list/)
  })
})
