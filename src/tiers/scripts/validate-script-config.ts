import { SkillHostError } from '../../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from '../../sandbox/policy.js'
import type { SkillScriptConfig } from './types.js'

function bad(why: string): never {
  throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `scripts: ${why}`)
}

function isPathList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.every((p) => typeof p === 'string' && normalizeAbsolutePath(p) !== undefined)
  )
}

/**
 * Throws `E_INVALID_SKILLS_CONFIG`, saying what to fix, unless `config` is a
 * usable tier-3 configuration: `hostEnvIsolated: true`, a handle, workspace,
 * translator and well-formed session policy, interpreters given as absolute
 * program paths that `interpreterReadPaths` covers, and sane positive limits
 * (`1 <= defaultTimeoutSeconds <= maxTimeoutSeconds`).
 */
export function validateSkillScriptConfig(config: SkillScriptConfig): void {
  if (typeof config !== 'object' || config === null) bad('the configuration must be an object.')
  if (config.hostEnvIsolated !== true) {
    bad('hostEnvIsolated must be true: scripts always run with an empty environment.')
  }
  if (typeof config.handle?.run !== 'function')
    bad('handle must be a SandboxHandle (e.g. createBubblewrapHandle()).')
  const ws = config.workspace
  for (const method of ['materialize', 'dispose', 'createScratch', 'disposeScratch'] as const) {
    if (typeof ws?.[method] !== 'function')
      bad(`workspace must implement ${method}() (e.g. createDirectoryWorkspace()).`)
  }
  if (typeof config.translator?.forCall !== 'function')
    bad('translator must be a PathTranslator (createPathTranslator()).')
  const fs = config.policy?.filesystem
  for (const key of ['allowRead', 'denyRead', 'allowWrite', 'denyWrite'] as const) {
    if (!isPathList(fs?.[key])) bad(`policy.filesystem.${key} must be a list of absolute paths.`)
  }
  const domains = config.policy.network?.allowedDomains
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string')) {
    bad('policy.network.allowedDomains must be a list of domain names.')
  }
  if (!isPathList(config.interpreterReadPaths)) {
    bad('interpreterReadPaths must be a list of absolute paths (explicit, even when empty).')
  }
  const interpreters = config.interpreters
  if (typeof interpreters !== 'object' || interpreters === null)
    bad('interpreters must map names to argv prefixes.')
  for (const [name, prefix] of Object.entries(interpreters)) {
    if (
      !Array.isArray(prefix) ||
      prefix.length === 0 ||
      prefix.some((p) => typeof p !== 'string' || p.includes('\0'))
    ) {
      bad(`interpreter '${name}' must be a non-empty list of strings, e.g. ['/bin/sh'].`)
    }
    const program = prefix[0] as string
    if (normalizeAbsolutePath(program) === undefined)
      bad(`interpreter '${name}' must start with an absolute program path.`)
    if (!config.interpreterReadPaths.some((r) => isPathInside(program, r))) {
      bad(
        `interpreter '${name}' (${program}) is not inside interpreterReadPaths; add its directory.`,
      )
    }
  }
  const max = config.maxTimeoutSeconds
  if (!Number.isSafeInteger(max) || max < 1) bad('maxTimeoutSeconds must be a positive integer.')
  const def = config.defaultTimeoutSeconds
  if (!Number.isSafeInteger(def) || def < 1 || def > max) {
    bad(`defaultTimeoutSeconds must be an integer between 1 and maxTimeoutSeconds (${max}).`)
  }
  if (!Number.isSafeInteger(config.maxOutputBytes) || config.maxOutputBytes < 1) {
    bad('maxOutputBytes must be a positive integer.')
  }
  if (config.failOnNonzeroExit !== undefined && typeof config.failOnNonzeroExit !== 'boolean') {
    bad('failOnNonzeroExit must be a boolean when set.')
  }
}
