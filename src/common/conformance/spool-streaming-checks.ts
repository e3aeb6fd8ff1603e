import type { SpoolStore } from '../spool-store.js'
import type { ConformanceCheck } from './conformance-check.js'
import { check, expectCode } from './conformance-check.js'
import {
  checkBytes,
  defineCheck,
  drain,
  patternBytes,
  type SpoolStoreConformanceOptions,
} from './spool-conformance-helpers.js'

const KIB = 1024
const NO_OPEN = { unsupported: 'the store has no open(): no streaming reads' } as const

/** A large item round-trips, streams in pieces, and reads by byte range. */
function streamRoundTripChecks(
  fresh: () => Promise<SpoolStore>,
  large: number,
): ConformanceCheck[] {
  return [
    defineCheck('a large item round-trips through put and get', async () => {
      const store = await fresh()
      const record = await store.put(patternBytes(large))
      check(record.size === large, `size ${record.size}; expected ${large}`)
      checkBytes(await store.get(record.id), patternBytes(large), 'get of the large item')
      return undefined
    }),
    defineCheck('open streams a large item in several pieces', async () => {
      const store = await fresh()
      if (!store.open) return NO_OPEN
      const record = await store.put(patternBytes(large))
      const { bytes, chunks } = await drain(await store.open(record.id), 'open()')
      checkBytes(bytes, patternBytes(large), 'the streamed large item')
      check(
        chunks > 1,
        `a ${large}-byte item came in ${chunks} piece; a stream must not hold it whole`,
      )
      return undefined
    }),
    defineCheck(
      'open reads byte ranges: across piece seams, clamped, empty and past the end',
      async () => {
        const store = await fresh()
        if (!store.open) return NO_OPEN
        const all = patternBytes(large)
        const record = await store.put(all)
        const seam = 256 * KIB
        const ranges: [number | undefined, number | undefined][] = [
          [undefined, 10],
          [seam - 3, seam + 5],
          [seam, 2 * seam],
          [1, large - 1],
          [large - 10, undefined],
          [5, 5],
          [large + 5, undefined],
          [0, large + 100],
          [large, large + 3],
        ]
        for (const [start, end] of ranges) {
          const range = {
            ...(start === undefined ? {} : { start }),
            ...(end === undefined ? {} : { end }),
          }
          const { bytes } = await drain(
            await store.open(record.id, range),
            `open(${JSON.stringify(range)})`,
          )
          const from = Math.min(start ?? 0, large)
          checkBytes(
            bytes,
            all.subarray(from, Math.max(from, Math.min(end ?? large, large))),
            `range ${JSON.stringify(range)}`,
          )
        }
        const empty = await store.put(new Uint8Array(0))
        checkBytes(
          (await drain(await store.open(empty.id), 'open(empty)')).bytes,
          new Uint8Array(0),
          'empty item',
        )
        return undefined
      },
    ),
  ]
}

/** Invalid ranges refused, a cancelled stream, a stream of a deleted item. */
function streamFailureChecks(fresh: () => Promise<SpoolStore>, large: number): ConformanceCheck[] {
  return [
    defineCheck('open refuses invalid ranges with E_ARTIFACT_READ_INVALID', async () => {
      const store = await fresh()
      if (!store.open) return NO_OPEN
      const record = await store.put('0123456789')
      const open = store.open.bind(store)
      const bad: unknown[] = [
        { start: -1 },
        { start: 1.5 },
        { start: 6, end: 2 },
        { start: Number.NaN },
        { end: Number.POSITIVE_INFINITY },
        { start: '3' },
      ]
      for (const range of bad)
        await expectCode(
          () => open(record.id, range as never),
          'E_ARTIFACT_READ_INVALID',
          `open(${String(JSON.stringify(range))})`,
        )
      return undefined
    }),
    defineCheck('a stream cancelled mid-way leaves the store working', async () => {
      const store = await fresh()
      if (!store.open) return NO_OPEN
      const record = await store.put(patternBytes(large))
      for (let i = 0; i < 3; i++) {
        const stream = await store.open(record.id)
        check(stream, 'open of a stored id resolved undefined')
        const reader = stream.getReader()
        const first = await reader.read()
        check(!first.done && first.value.byteLength > 0, 'the first read of a large item was empty')
        await reader.cancel()
      }
      checkBytes(await store.get(record.id), patternBytes(large), 'get after cancelled streams')
      return undefined
    }),
    defineCheck('a stream of a deleted item ends in an error, never in wrong bytes', async () => {
      const store = await fresh()
      if (!store.open) return NO_OPEN
      const all = patternBytes(large)
      const record = await store.put(all)
      const stream = await store.open(record.id)
      check(stream, 'open of a stored id resolved undefined')
      const reader = stream.getReader()
      const parts: Uint8Array[] = []
      const head = await reader.read()
      if (!head.done) parts.push(head.value)
      await store.delete(record.id)
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          parts.push(value)
        }
      } catch {
        return undefined // an error is a valid end
      }
      // Some stores (an open file) may still serve the whole item: then it must be exact.
      checkBytes(Buffer.concat(parts), all, 'a stream that outlived its delete')
      return undefined
    }),
  ]
}

/** Large content and `open`'s streaming reads with ranges. */
export function spoolStreamingChecks(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): ConformanceCheck[] {
  const large = options.largeBytes ?? 3 * KIB * KIB + 17
  return [...streamRoundTripChecks(fresh, large), ...streamFailureChecks(fresh, large)]
}
