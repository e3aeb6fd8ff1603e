import { SkillHostError } from '../../common/errors.js'
import type { IsolationLimits } from './types.js'

const KiB = 1024
const MiB = 1024 * KiB

/** The WebAssembly page size; guest memory is sized in whole pages. */
export const WASM_PAGE_BYTES = 64 * KiB

/**
 * The smallest memory cap. The QuickJS binary declares 256 pages (16 MiB) as
 * its minimum memory; a fresh guest memory now starts smaller and grows on
 * demand (see `GUEST_INITIAL_PAGES`), but caps keep this floor.
 */
export const MIN_GUEST_MEMORY_BYTES = 16 * MiB

/** The largest interpreter stack that still overflows as a catchable error. */
export const MAX_GUEST_STACK_BYTES = 256 * KiB

/** The limits used for any field left unset. */
export const DEFAULT_ISOLATION_LIMITS: Readonly<IsolationLimits> = Object.freeze({
  memoryBytes: 32 * MiB,
  stackBytes: 256 * KiB,
  maxResultBytes: 1 * MiB,
  maxConsoleEntries: 100,
  maxConsoleBytes: 64 * KiB,
  maxArgsBytes: 256 * KiB,
  maxHostCalls: 1_000,
})

const FIELDS = Object.keys(DEFAULT_ISOLATION_LIMITS) as (keyof IsolationLimits)[]

/**
 * Fills unset fields from the defaults and checks every value. With a
 * `ceiling`, each field is lowered to it: a pool's limits bound what any
 * configuration asks of it. Throws `E_INVALID_SKILLS_CONFIG` on nonsense.
 */
export function resolveIsolationLimits(
  partial: Partial<IsolationLimits> = {},
  ceiling?: Readonly<IsolationLimits>,
): IsolationLimits {
  const out = { ...DEFAULT_ISOLATION_LIMITS }
  for (const field of FIELDS) {
    const value = partial[field]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        `Isolation limit '${field}' must be a non-negative integer.`,
      )
    }
    out[field] = value
  }
  if (ceiling) for (const field of FIELDS) out[field] = Math.min(out[field], ceiling[field])
  if (out.memoryBytes < MIN_GUEST_MEMORY_BYTES) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      `Isolation limit 'memoryBytes' must be at least ${MIN_GUEST_MEMORY_BYTES} (16 MiB), the QuickJS minimum.`,
    )
  }
  // 2^16 pages is the whole 32-bit address space: the most a guest can have.
  out.memoryBytes = Math.min(
    Math.floor(out.memoryBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES,
    65_536 * WASM_PAGE_BYTES,
  )
  // Past 256 KiB the interpreter's own check no longer fires before the
  // WebAssembly stack runs out, and overflow stops being a catchable error.
  if (out.stackBytes < 16 * KiB || out.stackBytes > MAX_GUEST_STACK_BYTES) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      "Isolation limit 'stackBytes' must be between 16 KiB and 256 KiB.",
    )
  }
  return out
}
