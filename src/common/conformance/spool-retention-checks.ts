import type { SpoolStore } from '../spool-store.js'
import type { ConformanceCheck } from './conformance-check.js'
import { check } from './conformance-check.js'
import {
  defineCheck,
  expectTypeError,
  patternBytes,
  type SpoolStoreConformanceOptions,
} from './spool-conformance-helpers.js'

const NO_PRUNE = { unsupported: 'the store has no prune(): no retention' } as const

const alive = async (store: SpoolStore, ids: readonly string[]): Promise<boolean[]> =>
  Promise.all(ids.map(async (id) => (await store.stat(id)) !== undefined))

/** Retention by age, and by size oldest first. */
function pruneByAgeAndSizeChecks(fresh: () => Promise<SpoolStore>): ConformanceCheck[] {
  return [
    defineCheck('prune by age removes items older than maxAgeMs and keeps the rest', async () => {
      const store = await fresh()
      if (!store.prune) return NO_PRUNE
      const ids = [(await store.put(patternBytes(10))).id, (await store.put(patternBytes(20))).id]
      const none = await store.prune({ maxAgeMs: 3_600_000 })
      check(
        none.removed === 0 && none.keptBytes === 30,
        `an hour's bound removed ${none.removed} (kept ${none.keptBytes} bytes)`,
      )
      const all = await store.prune({ maxAgeMs: 1_000, now: Date.now() + 60_000 })
      check(
        all.removed === 2 && all.removedBytes === 30 && all.keptBytes === 0,
        `a minute later: ${JSON.stringify(all)}`,
      )
      check(
        (await alive(store, ids)).every((a) => !a),
        'pruned items are still readable',
      )
      return undefined
    }),
    defineCheck('prune by size removes the oldest items first', async () => {
      const store = await fresh()
      if (!store.prune) return NO_PRUNE
      const ids: string[] = []
      for (let i = 0; i < 4; i++) ids.push((await store.put(patternBytes(100, i))).id)
      const result = await store.prune({ maxBytes: 250 })
      check(
        result.removed === 2 && result.removedBytes === 200 && result.keptBytes === 200,
        `maxBytes 250 over 4×100 bytes: ${JSON.stringify(result)}`,
      )
      const states = await alive(store, ids)
      check(
        states.join() === 'false,false,true,true',
        `which items survived (oldest first): ${states.join()}`,
      )
      check((await store.prune({})).removed === 0, 'prune with no bound removed something')
      check((await store.prune({ maxBytes: 0 })).removed === 2, 'maxBytes 0 must remove the rest')
      return undefined
    }),
  ]
}

/** Bounds `prune` refuses, and retention by session (`keepSessions` protecting others). */
function pruneBoundsAndSessionChecks(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): ConformanceCheck[] {
  return [
    defineCheck('prune refuses bounds that are negative or not numbers', async () => {
      const store = await fresh()
      if (!store.prune) return NO_PRUNE
      const prune = store.prune.bind(store)
      for (const bad of [
        { maxAgeMs: -1 },
        { maxBytes: Number.NaN },
        { maxBytes: '5' },
        { session: '' },
      ])
        await expectTypeError(() => prune(bad as never), `prune(${JSON.stringify(bad)})`)
      return undefined
    }),
    defineCheck(
      "prune by session removes that session's items; keepSessions protects others",
      async () => {
        const store = await fresh()
        if (!store.prune) return NO_PRUNE
        if (!options.withSession)
          return { unsupported: 'no withSession option: the store does not tag puts by session' }
        const a = await options.withSession(store, 'session-a')
        const b = await options.withSession(store, 'session-b')
        const ra = await a.put(patternBytes(100))
        const rb = await b.put(patternBytes(100))
        const rn = await store.put(patternBytes(100))
        const dropped = await store.prune({ session: 'session-a' })
        check(
          dropped.removed === 1 && dropped.removedBytes === 100,
          `prune({ session }): ${JSON.stringify(dropped)}`,
        )
        check(
          (await alive(store, [ra.id, rb.id, rn.id])).join() === 'false,true,true',
          'prune by session touched another session',
        )
        const kept = await store.prune({ maxBytes: 0, keepSessions: ['session-b'] })
        check(
          kept.removed === 1 && kept.keptBytes === 0,
          `prune({ maxBytes: 0, keepSessions }): ${JSON.stringify(kept)}`,
        )
        check(
          (await alive(store, [rb.id, rn.id])).join() === 'true,false',
          'keepSessions did not protect session-b',
        )
        return undefined
      },
    ),
  ]
}

/** Retention through `prune`: by age, by size (oldest first) and by session. */
export function spoolRetentionChecks(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): ConformanceCheck[] {
  return [...pruneByAgeAndSizeChecks(fresh), ...pruneBoundsAndSessionChecks(fresh, options)]
}
