import type { Retrievable } from '../retrievable.js'
import {
  describeSpooled,
  SPOOL_ID_PATTERN,
  type SpoolMeta,
  type SpoolStore,
} from '../spool-store.js'
import type { ConformanceCheck } from './conformance-check.js'
import { check } from './conformance-check.js'
import {
  checkBytes,
  defineCheck,
  type MakeSpoolStore,
  patternBytes,
  type SpoolStoreConformanceOptions,
  twoHandles,
} from './spool-conformance-helpers.js'
import { spoolIdempotencyChecks } from './spool-idempotency-checks.js'
import { spoolQuotaChecks } from './spool-quota-checks.js'
import { spoolRetentionChecks } from './spool-retention-checks.js'
import { spoolStreamingChecks } from './spool-streaming-checks.js'

/** Ids every store must answer with undefined (get, stat, open) and false (delete), never a throw. */
export const HOSTILE_SPOOL_IDS: readonly string[] = [
  'r_0000000000000000',
  'r_0000000000000000\n',
  'R_0123456789ABCDEF',
  'r_0123456789abcde',
  "r_0000000000000000' OR '1'='1",
  "'; DROP TABLE spool_items; --",
  '../../etc/passwd',
  'r_0000000000000000/../../victim',
  '/etc/passwd',
  '',
  'r_\u0000000000000000',
  'x'.repeat(10_000),
]

// Metadata a skill may control: NUL, quotes, markup, non-BMP text.
const HOSTILE_META: SpoolMeta = {
  kind: 'markdown',
  mimeType: 'text/markdown',
  title: 't\u0000\'"<x>🎉',
  provenance: { skill: 'pdf', skillVersion: 'sha256-ab', tool: "ex'\u0000", source: '../x' },
}

const freezeChecked = (r: Retrievable, what: string): void => {
  check(Object.isFrozen(r), `${what}: the record must be frozen`)
  check(Object.isFrozen(r.provenance), `${what}: its provenance must be frozen`)
}

/** Checks `record` has exactly the shape `describeSpooled` gives for `content` and `meta`. */
function checkRecord(record: Retrievable, size: number, meta: SpoolMeta, what: string): void {
  check(SPOOL_ID_PATTERN.test(record.id), `${what}: id '${record.id}' must match SPOOL_ID_PATTERN`)
  const expected = describeSpooled(record.id, new Uint8Array(size), meta)
  const shaped = { ...expected, createdAt: record.createdAt }
  check(
    JSON.stringify(record) === JSON.stringify(shaped),
    `${what}: record ${JSON.stringify(record)} differs from describeSpooled's ${JSON.stringify(shaped)}`,
  )
  check(
    Number.isSafeInteger(record.createdAt) && Math.abs(record.createdAt - Date.now()) < 86_400_000,
    `${what}: createdAt must be ms since the epoch`,
  )
  freezeChecked(record, what)
}

/** What put returns, and content stored exactly and immutably. */
function recordAndContentChecks(fresh: () => Promise<SpoolStore>): ConformanceCheck[] {
  return [
    defineCheck(
      'put returns a frozen record shaped like describeSpooled, and stat returns it',
      async () => {
        const store = await fresh()
        for (const meta of [
          HOSTILE_META,
          {},
          { trusted: true, kind: 'json', mimeType: 'application/json' },
        ]) {
          const record = await store.put(new Uint8Array([1, 2, 3]), meta)
          checkRecord(record, 3, meta, `put with ${JSON.stringify(meta)}`)
          const stat = await store.stat(record.id)
          check(stat, 'stat of a fresh id resolved undefined')
          check(
            JSON.stringify(stat) === JSON.stringify(record),
            `stat differs from put's record: ${JSON.stringify(stat)}`,
          )
          freezeChecked(stat, 'stat')
        }
        return undefined
      },
    ),
    defineCheck('bytes round-trip exactly (every byte value, and empty content)', async () => {
      const store = await fresh()
      const all = Uint8Array.from({ length: 512 }, (_, i) => i % 256)
      checkBytes(await store.get((await store.put(all)).id), all, 'get of 512 bytes')
      const empty = await store.put(new Uint8Array(0))
      check(empty.size === 0, `empty content has size ${empty.size}`)
      checkBytes(await store.get(empty.id), new Uint8Array(0), 'get of empty content')
      const view = new Uint8Array(all.buffer, 100, 50)
      checkBytes(
        await store.get((await store.put(view)).id),
        all.slice(100, 150),
        'get of a subarray view',
      )
      return undefined
    }),
    defineCheck('text is stored as UTF-8 and sized in bytes', async () => {
      const store = await fresh()
      for (const text of ['héllo ✓ 🎉', 'nul\u0000inside', 'lone \ud800 surrogate', '']) {
        const record = await store.put(text)
        const bytes = new Uint8Array(Buffer.from(text, 'utf8'))
        check(
          record.size === bytes.byteLength,
          `size ${record.size} for ${JSON.stringify(text)}; expected ${bytes.byteLength}`,
        )
        checkBytes(await store.get(record.id), bytes, `get of ${JSON.stringify(text)}`)
      }
      if (store.putSync) {
        const sync = store.putSync('sync ✓')
        checkBytes(
          await store.get(sync.id),
          new Uint8Array(Buffer.from('sync ✓')),
          'get after putSync',
        )
      }
      return undefined
    }),
    defineCheck(
      'content is immutable: mutating the input or a read copy changes nothing',
      async () => {
        const store = await fresh()
        const input = patternBytes(1000)
        const record = await store.put(input)
        input.fill(0)
        const first = await store.get(record.id)
        checkBytes(first, patternBytes(1000), 'get after mutating the input')
        first?.fill(9)
        checkBytes(await store.get(record.id), patternBytes(1000), 'get after mutating a read copy')
        return undefined
      },
    ),
  ]
}

/** Ids, delete, concurrent puts, and two handles over the same storage. */
function idsDeleteAndHandlesChecks(
  options: SpoolStoreConformanceOptions,
  fresh: () => Promise<SpoolStore>,
): ConformanceCheck[] {
  return [
    defineCheck('ids are unique and unguessable across puts', async () => {
      const store = await fresh()
      const ids = new Set<string>()
      for (let i = 0; i < 64; i++) ids.add((await store.put(new Uint8Array([1]))).id)
      check(ids.size === 64, `64 puts gave ${ids.size} distinct ids`)
      return undefined
    }),
    defineCheck('unknown and malformed ids resolve undefined or false, never throw', async () => {
      const store = await fresh()
      const kept = await store.put('keep me')
      for (const id of [...HOSTILE_SPOOL_IDS, kept.id.toUpperCase(), `${kept.id} `]) {
        const shown = JSON.stringify(id.slice(0, 40))
        check((await store.get(id)) === undefined, `get(${shown}) must resolve undefined`)
        check((await store.stat(id)) === undefined, `stat(${shown}) must resolve undefined`)
        if (store.open)
          check((await store.open(id)) === undefined, `open(${shown}) must resolve undefined`)
        check((await store.delete(id)) === false, `delete(${shown}) must resolve false`)
      }
      checkBytes(
        await store.get(kept.id),
        new Uint8Array(Buffer.from('keep me')),
        'the item put before',
      )
      return undefined
    }),
    defineCheck('delete removes bytes and record, only once, and leaves other items', async () => {
      const store = await fresh()
      const a = await store.put('a')
      const b = await store.put('b')
      check((await store.delete(a.id)) === true, 'delete of a stored id must resolve true')
      check((await store.get(a.id)) === undefined, 'get after delete must resolve undefined')
      check((await store.stat(a.id)) === undefined, 'stat after delete must resolve undefined')
      if (store.open)
        check((await store.open(a.id)) === undefined, 'open after delete must resolve undefined')
      check((await store.delete(a.id)) === false, 'a second delete must resolve false')
      checkBytes(await store.get(b.id), new Uint8Array([0x62]), 'the other item')
      return undefined
    }),
    defineCheck('concurrent puts all land, each with its own bytes', async () => {
      const store = await fresh()
      const records = await Promise.all(
        Array.from({ length: 24 }, (_, i) => store.put(patternBytes(300 + i, i))),
      )
      check(new Set(records.map((r) => r.id)).size === 24, 'concurrent puts shared an id')
      for (const [i, r] of records.entries())
        checkBytes(await store.get(r.id), patternBytes(300 + i, i), `concurrent put ${i}`)
      return undefined
    }),
    defineCheck(
      'an item put on one handle is read and deleted on another over the same storage',
      async () => {
        const handles = await twoHandles(fresh, options)
        if ('unsupported' in handles) return handles
        const { store, other } = handles
        const record = await store.put(patternBytes(5000), HOSTILE_META)
        checkBytes(await other.get(record.id), patternBytes(5000), 'get on the other handle')
        check(
          JSON.stringify(await other.stat(record.id)) === JSON.stringify(record),
          'stat on the other handle differs',
        )
        check(
          (await other.delete(record.id)) === true,
          'delete on the other handle must resolve true',
        )
        check(
          (await store.get(record.id)) === undefined,
          'the first handle still reads a deleted item',
        )
        return undefined
      },
    ),
  ]
}

/**
 * The checks of the `SpoolStore` contract, each on a fresh, empty store from
 * `makeStore`. Framework-free: run them with `runSpoolStoreConformance` or
 * wrap each in your test runner's `it`. Optional features a store lacks
 * (`open`, `prune`, a second handle on its storage, sessions) are reported
 * `unsupported` with the reason, never skipped silently.
 */
export function spoolStoreConformanceChecks(
  makeStore: MakeSpoolStore,
  options: SpoolStoreConformanceOptions = {},
): ConformanceCheck[] {
  const fresh = async (): Promise<SpoolStore> => makeStore()
  return [
    ...recordAndContentChecks(fresh),
    ...idsDeleteAndHandlesChecks(options, fresh),
    ...spoolStreamingChecks(fresh, options),
    ...spoolIdempotencyChecks(fresh, options),
    ...spoolRetentionChecks(fresh, options),
    ...spoolQuotaChecks(options),
  ]
}
