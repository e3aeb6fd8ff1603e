import { SkillHostError } from '../errors.js'
import type { SpoolStore } from '../spool-store.js'
import type { ConformanceCheck, ConformanceUnsupported } from './conformance-check.js'
import { check } from './conformance-check.js'
import {
  checkBytes,
  defineCheck,
  patternBytes,
  type SpoolStoreConformanceOptions,
} from './spool-conformance-helpers.js'

const NO_QUOTA: ConformanceUnsupported = {
  unsupported: 'no withQuota option: the store enforces no quota',
}

/** Expects `action` to reject with `E_SPOOL_FULL`. */
async function expectFull(action: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await action()
  } catch (err) {
    check(
      SkillHostError.is(err, 'E_SPOOL_FULL'),
      `${what} rejected with ${String(err)}; expected E_SPOOL_FULL`,
    )
    return
  }
  throw new Error(`${what} succeeded; expected E_SPOOL_FULL`)
}

/** The quota (`options.withQuota`): items and bytes bounded, keyed retries never counted twice. */
export function spoolQuotaChecks(options: SpoolStoreConformanceOptions): ConformanceCheck[] {
  const quoted = async (quota: {
    maxBytes: number
    maxItems: number
  }): Promise<SpoolStore | undefined> => (options.withQuota ? options.withQuota(quota) : undefined)
  return [
    defineCheck('a put past maxItems is refused with E_SPOOL_FULL and stores nothing', async () => {
      const store = await quoted({ maxBytes: 1 << 20, maxItems: 3 })
      if (!store) return NO_QUOTA
      const kept = []
      for (let i = 0; i < 3; i++) kept.push(await store.put(patternBytes(10, i)))
      await expectFull(() => store.put(patternBytes(10, 9)), 'the fourth put')
      for (const [i, r] of kept.entries())
        checkBytes(await store.get(r.id), patternBytes(10, i), 'an item put before the refusal')
      check(await store.delete(kept[0]?.id ?? ''), 'delete of the first item')
      const after = await store.put(patternBytes(10, 8))
      checkBytes(await store.get(after.id), patternBytes(10, 8), 'a put after a delete freed room')
      return undefined
    }),
    defineCheck(
      'a put past maxBytes is refused; a keyed retry of a stored item is not counted again',
      async () => {
        const store = await quoted({ maxBytes: 1000, maxItems: 100 })
        if (!store) return NO_QUOTA
        const key = { idempotencyKey: 'quota-retry' }
        const first = await store.put(patternBytes(600), {}, key)
        await expectFull(() => store.put(patternBytes(401, 1)), 'a put past maxBytes')
        const retry = await store.put(patternBytes(600), {}, key)
        check(retry.id === first.id, 'a keyed retry on a full store must return the first record')
        const fits = await store.put(patternBytes(400, 2))
        checkBytes(await store.get(fits.id), patternBytes(400, 2), 'a put that fits exactly')
        await expectFull(() => store.put(patternBytes(1, 3)), 'a put on a store at maxBytes')
        return undefined
      },
    ),
  ]
}
