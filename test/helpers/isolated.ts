import type { SkillIsolatedTool } from '../../src/tiers/isolated/index.js'

/** The shared `rejectsWith`, under the name the isolated suites use. */
export { rejectsWith as expectCode } from './error-code.js'

/** A tool from a source string. */
export function tool(source: string, params?: SkillIsolatedTool['params']): SkillIsolatedTool {
  return { name: 'probe', description: 'test tool', source, ...(params ? { params } : {}) }
}

const MiB = 1024 * 1024

/** Resident set size in MiB (workers share the process, so this covers guests too). */
export function rssMiB(): number {
  return process.memoryUsage().rss / MiB
}
