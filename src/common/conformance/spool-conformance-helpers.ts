import type { SpoolStore } from '../spool-store.js'
import type { ConformanceCheck, ConformanceUnsupported } from './conformance-check.js'
import { check } from './conformance-check.js'

/** Options for the spool store conformance kit. */
export interface SpoolStoreConformanceOptions {
  /**
   * A second handle on the same storage as `store` (another pool, another
   * replica's view). Enables the shared-storage checks; without it they
   * report unsupported.
   */
  readonly sameStorage?: (store: SpoolStore) => SpoolStore | Promise<SpoolStore>
  /**
   * A handle on the same storage as `store` that tags its puts with
   * `session`. Enables the by-session retention and key-scope checks.
   */
  readonly withSession?: (store: SpoolStore, session: string) => SpoolStore | Promise<SpoolStore>
  /**
   * A fresh, empty store over its own storage that holds at most `maxBytes`
   * bytes and `maxItems` items. Enables the quota checks; without it they
   * report unsupported.
   */
  readonly withQuota?: (quota: {
    readonly maxBytes: number
    readonly maxItems: number
  }) => SpoolStore | Promise<SpoolStore>
  /** Size of the large item, in bytes. Default 3 MiB + 17 (many pieces, a ragged end). */
  readonly largeBytes?: number
}

/**
 * A fresh store and a second handle on its storage (`options.sameStorage`),
 * or the `unsupported` answer every shared-storage check gives without one.
 */
export async function twoHandles(
  fresh: () => Promise<SpoolStore>,
  options: SpoolStoreConformanceOptions,
): Promise<{ store: SpoolStore; other: SpoolStore } | ConformanceUnsupported> {
  if (!options.sameStorage)
    return { unsupported: 'no sameStorage option: the store has no shared storage to open twice' }
  const store = await fresh()
  return { store, other: await options.sameStorage(store) }
}

/** Makes a fresh, empty store for one check. */
export type MakeSpoolStore = () => SpoolStore | Promise<SpoolStore>

/** Shorthand for a named check. */
export const defineCheck = (
  name: string,
  run: () => Promise<undefined | ConformanceUnsupported>,
): ConformanceCheck => ({ name, run })

/** `n` bytes of a pattern that differs at every offset of a 251-byte cycle (prime, so chunk seams show). */
export function patternBytes(n: number, salt = 0): Uint8Array {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = (i * 7 + salt) % 251
  return out
}

/** True when two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.byteLength !== b.byteLength) return false
  return (
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  )
}

/** Checks `actual` holds `expected`'s bytes, naming `what` and the first difference. */
export function checkBytes(
  actual: Uint8Array | undefined,
  expected: Uint8Array,
  what: string,
): void {
  check(actual instanceof Uint8Array, `${what}: expected a Uint8Array, got ${typeof actual}`)
  check(
    actual.byteLength === expected.byteLength,
    `${what}: ${actual.byteLength} bytes; expected ${expected.byteLength}`,
  )
  if (!sameBytes(actual, expected)) {
    let i = 0
    while (actual[i] === expected[i]) i++
    throw new Error(`${what}: bytes differ first at offset ${i}`)
  }
}

/** Reads a stream to its end, checking every chunk is a non-empty Uint8Array. */
export async function drain(
  stream: unknown,
  what: string,
): Promise<{ bytes: Uint8Array; chunks: number }> {
  check(stream instanceof ReadableStream, `${what} must resolve to a ReadableStream`)
  const reader = (stream as ReadableStream<unknown>).getReader()
  const parts: Uint8Array[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    check(value instanceof Uint8Array, `${what} yielded a chunk that is not a Uint8Array`)
    parts.push(value)
  }
  return { bytes: Buffer.concat(parts), chunks: parts.filter((p) => p.byteLength > 0).length }
}

/** Expects `action` to reject (or throw) with a `TypeError`. */
export async function expectTypeError(action: () => unknown, what: string): Promise<void> {
  try {
    await action()
  } catch (err) {
    check(err instanceof TypeError, `${what} rejected with ${String(err)}; expected a TypeError`)
    return
  }
  throw new Error(`${what} succeeded; expected a TypeError`)
}
