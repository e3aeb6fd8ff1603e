import { describe, expect, it } from 'vitest'
import {
  clampTimeoutSeconds,
  DEFAULT_ISOLATION_LIMITS,
  MIN_GUEST_MEMORY_BYTES,
  resolveIsolationLimits,
} from '../../../src/tiers/isolated/index.js'

describe('resolveIsolationLimits', () => {
  it('fills defaults', () => {
    expect(resolveIsolationLimits()).toEqual(DEFAULT_ISOLATION_LIMITS)
    expect(DEFAULT_ISOLATION_LIMITS.memoryBytes).toBe(32 * 1024 * 1024)
    expect(DEFAULT_ISOLATION_LIMITS.stackBytes).toBe(256 * 1024)
    expect(DEFAULT_ISOLATION_LIMITS.maxResultBytes).toBe(1024 * 1024)
  })

  it('lowers every field to a ceiling', () => {
    const ceiling = resolveIsolationLimits({ memoryBytes: 20 * 1024 * 1024, maxResultBytes: 10 })
    const limits = resolveIsolationLimits(
      { memoryBytes: 64 * 1024 * 1024, maxResultBytes: 1000 },
      ceiling,
    )
    expect(limits.memoryBytes).toBe(20 * 1024 * 1024)
    expect(limits.maxResultBytes).toBe(10)
  })

  it('refuses memory below the QuickJS minimum, a huge stack, and nonsense', () => {
    for (const bad of [
      { memoryBytes: MIN_GUEST_MEMORY_BYTES - 1 },
      { stackBytes: 4 * 1024 * 1024 },
      { maxResultBytes: -1 },
      { maxConsoleEntries: 1.5 },
      { maxArgsBytes: Number.NaN },
    ]) {
      expect(() => resolveIsolationLimits(bad)).toThrow(
        expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }),
      )
    }
  })

  it('rounds memory down to whole WebAssembly pages', () => {
    expect(resolveIsolationLimits({ memoryBytes: MIN_GUEST_MEMORY_BYTES + 1000 }).memoryBytes).toBe(
      MIN_GUEST_MEMORY_BYTES,
    )
  })
})

describe('clampTimeoutSeconds', () => {
  const config = { maxTimeoutSeconds: 10, defaultTimeoutSeconds: 3 }
  it('uses the default when unset and clamps to 1..max', () => {
    expect(clampTimeoutSeconds(config, undefined)).toBe(3)
    expect(clampTimeoutSeconds(config, 0)).toBe(1)
    expect(clampTimeoutSeconds(config, -5)).toBe(1)
    expect(clampTimeoutSeconds(config, 2.5)).toBe(2.5)
    expect(clampTimeoutSeconds(config, 1e9)).toBe(10)
  })
  it('rejects non-numbers as invalid arguments and a broken config', () => {
    expect(() => clampTimeoutSeconds(config, '5')).toThrow(
      expect.objectContaining({ code: 'E_TOOL_INVALID_ARGS' }),
    )
    expect(() => clampTimeoutSeconds(config, Number.POSITIVE_INFINITY)).toThrow(
      expect.objectContaining({ code: 'E_TOOL_INVALID_ARGS' }),
    )
    expect(() =>
      clampTimeoutSeconds({ maxTimeoutSeconds: 0, defaultTimeoutSeconds: 1 }, 1),
    ).toThrow(expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }))
  })
})
