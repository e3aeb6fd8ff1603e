import type { SpoolStore } from '../spool-store.js'
import type { ConformanceCheck } from './conformance-check.js'
import { check } from './conformance-check.js'
import {
  checkBytes,
  defineCheck,
  expectTypeError,
  patternBytes,
  type SpoolStoreConformanceOptions,
  twoHandles,
} from './spool-conformance-helpers.js'

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** A keyed put retried, one after the other or at once: one item, the first record. */
function keyedRetryChecks(fresh: () => Promise<SpoolStore>): ConformanceCheck[] {
  return [
    defineCheck(
      'a put retried with the same idempotency key returns the first record',
      async () => {
        const store = await fresh()
        const key = { idempotencyKey: "call-1 ' ✓" }
        const first = await store.put(patternBytes(700), { title: 'first' }, key)
        const again = await store.put(patternBytes(700), { title: 'first' }, key)
        check(
          same(first, again),
          `the retry returned ${JSON.stringify(again)}; expected the first record`,
        )
        const other = await store.put(patternBytes(9), { title: 'other' }, key)
        check(
          other.id === first.id,
          'a put with a taken key (other content) must return the first record',
        )
        checkBytes(
          await store.get(first.id),
          patternBytes(700),
          'the keyed item keeps its first bytes',
        )
        const fresh2 = await store.put(patternBytes(700), {}, { idempotencyKey: 'call-2' })
        check(fresh2.id !== first.id, 'another key must make another item')
        check(
          (await store.put(patternBytes(700))).id !== first.id,
          'a put without a key must make another item',
        )
        check(await store.delete(first.id), 'delete of the keyed item')
        const after = await store.put(patternBytes(3), {}, key)
        check(after.id !== first.id, 'a key whose item was deleted must be free again')
        checkBytes(
          await store.get(after.id),
          patternBytes(3),
          'the item put after the key was freed',
        )
        return undefined
      },
    ),
    defineCheck('concurrent puts with one key end with one item', async () => {
      const store = await fresh()
      const key = { idempotencyKey: 'race' }
      const records = await Promise.all(
        Array.from({ length: 8 }, () => store.put(patternBytes(40_000), {}, key)),
      )
      const ids = new Set(records.map((r) => r.id))
      check(ids.size === 1, `8 concurrent puts with one key gave ${ids.size} items`)
      check(await store.delete(records[0]!.id), 'delete of the one item')
      check(
        (await store.put('x', {}, key)).id !== records[0]!.id,
        'the key must be free after delete',
      )
      return undefined
    }),
  ]
}

/** Which keys are accepted, one key across two handles, and a key scoped to its session. */
function keyBoundsAndScopeChecks(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): ConformanceCheck[] {
  return [
    defineCheck(
      'idempotency keys are checked: empty, NUL or over 256 characters is a TypeError',
      async () => {
        const store = await fresh()
        for (const bad of ['', 'a\u0000b', 'k'.repeat(257), 42])
          await expectTypeError(
            () => store.put('x', {}, { idempotencyKey: bad as string }),
            `put with key ${JSON.stringify(bad)}`,
          )
        check(
          (await store.put('x', {}, { idempotencyKey: 'k'.repeat(256) })).size === 1,
          'a 256-character key must be accepted',
        )
        return undefined
      },
    ),
    defineCheck(
      'concurrent puts with one key on two handles over the same storage end with one item',
      async () => {
        const handles = await twoHandles(fresh, options)
        if ('unsupported' in handles) return handles
        const { store, other } = handles
        const key = { idempotencyKey: 'two-handles' }
        const records = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? other : store).put(patternBytes(300_000), {}, key),
          ),
        )
        check(
          new Set(records.map((r) => r.id)).size === 1,
          'puts with one key on two handles gave several items',
        )
        checkBytes(await other.get(records[0]!.id), patternBytes(300_000), 'the one item')
        return undefined
      },
    ),
    defineCheck('an idempotency key is scoped to its session', async () => {
      if (!options.withSession)
        return { unsupported: 'no withSession option: the store does not tag puts by session' }
      const store = await fresh()
      const a = await options.withSession(store, 'session-a')
      const b = await options.withSession(store, 'session-b')
      const key = { idempotencyKey: '1' } // MCP request ids repeat across sessions
      const ra = await a.put('from a', {}, key)
      const rb = await b.put('from b', {}, key)
      check(ra.id !== rb.id, 'one key in two sessions must make two items')
      check(
        (await a.put('again', {}, key)).id === ra.id,
        'the retry in session a must return its first record',
      )
      return undefined
    }),
  ]
}

/** Puts with an `idempotencyKey`: retried, raced, across handles and sessions. */
export function spoolIdempotencyChecks(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): ConformanceCheck[] {
  return [...keyedRetryChecks(fresh), ...keyBoundsAndScopeChecks(fresh, options)]
}
