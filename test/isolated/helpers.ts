import { expect } from 'vitest'
import { SkillHostError, type SkillHostErrorCode } from '../../src/common/errors.js'
import type { SkillIsolatedTool } from '../../src/tiers/isolated/index.js'

/** Awaits `promise`, expecting a SkillHostError with `code`; returns it. */
export async function expectCode(
  promise: Promise<unknown>,
  code: SkillHostErrorCode,
): Promise<SkillHostError> {
  try {
    await promise
  } catch (err) {
    expect(SkillHostError.isInstance(err), String(err)).toBe(true)
    const e = err as SkillHostError
    expect(e.code, e.message).toBe(code)
    return e
  }
  throw new Error(`expected ${code}, but the call succeeded`)
}

/** A tool from a source string. */
export function tool(source: string, params?: SkillIsolatedTool['params']): SkillIsolatedTool {
  return { name: 'probe', description: 'test tool', source, ...(params ? { params } : {}) }
}

const MiB = 1024 * 1024

/** Resident set size in MiB (workers share the process, so this covers guests too). */
export function rssMiB(): number {
  return process.memoryUsage().rss / MiB
}
