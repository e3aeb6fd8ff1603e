import { SkillHostError } from '../../../common/errors.js'
import { assertHostEnvIsolated } from '../policy/host-env-isolated.js'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import type { SkillScriptConfig } from '../types.js'

function bad(field: string, why: string): never {
  throw new SkillHostError('E_INVALID_SKILLS_CONFIG', `scripts.${field} ${why}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function isPathList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.every((p) => typeof p === 'string' && normalizeAbsolutePath(p) !== undefined)
  )
}

function checkPolicy(config: Record<string, unknown>): readonly string[] {
  const policy = config.policy
  if (!isObject(policy)) bad('policy', 'is required: the session policy every call stays within.')
  const fs = policy.filesystem
  if (!isObject(fs)) bad('policy.filesystem', 'must be an object of path lists.')
  for (const key of ['allowRead', 'denyRead', 'allowWrite', 'denyWrite'] as const) {
    if (!isPathList(fs[key])) bad(`policy.filesystem.${key}`, 'must be a list of absolute paths.')
  }
  const domains = isObject(policy.network) ? policy.network.allowedDomains : undefined
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string')) {
    bad('policy.network.allowedDomains', 'must be a list of domain names.')
  }
  return fs.allowWrite as string[]
}

function checkInterpreters(config: Record<string, unknown>): void {
  const readPaths = config.interpreterReadPaths
  if (!isPathList(readPaths)) {
    bad(
      'interpreterReadPaths',
      'must be an explicit list of absolute paths (empty is fine) so it can be reviewed.',
    )
  }
  const interpreters = config.interpreters
  if (!isObject(interpreters)) bad('interpreters', 'must map names to argv prefixes.')
  for (const [name, prefix] of Object.entries(interpreters)) {
    if (
      !Array.isArray(prefix) ||
      prefix.length === 0 ||
      prefix.some((p) => typeof p !== 'string' || p.includes('\0'))
    ) {
      bad(`interpreters.${name}`, "must be a non-empty list of strings, e.g. ['/bin/sh'].")
    }
    const program = prefix[0] as string
    if (normalizeAbsolutePath(program) === undefined) {
      bad(`interpreters.${name}`, 'must start with an absolute program path.')
    }
    if (!reachable(config, name, program, readPaths)) {
      bad(
        `interpreters.${name}`,
        `(${program}) is not inside interpreterReadPaths; add its directory.`,
      )
    }
  }
}

/**
 * Whether scripts can start `name`: from its view (`interpreterViews`: the
 * program it names lies in one of `interpreterMounts` or a read path), else
 * from `program` inside a read path.
 */
function reachable(
  config: Record<string, unknown>,
  name: string,
  program: string,
  readPaths: readonly string[],
): boolean {
  const views = isObject(config.interpreterViews) ? config.interpreterViews : {}
  const view = Object.hasOwn(views, name) ? views[name] : undefined
  const seenAt = isObject(view) && Array.isArray(view.argv) ? view.argv[0] : undefined
  if (typeof seenAt !== 'string') return readPaths.some((r) => isPathInside(program, r))
  const mounts = Array.isArray(config.interpreterMounts) ? config.interpreterMounts : []
  return (
    mounts.some(
      (m) => isObject(m) && typeof m.sandbox === 'string' && isPathInside(seenAt, m.sandbox),
    ) || readPaths.some((r) => isPathInside(seenAt, r))
  )
}

function checkLimits(config: Record<string, unknown>): void {
  const max = config.maxTimeoutSeconds
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
    bad('maxTimeoutSeconds', 'must be a positive integer.')
  }
  const def = config.defaultTimeoutSeconds
  if (typeof def !== 'number' || !Number.isSafeInteger(def) || def < 1 || def > max) {
    bad('defaultTimeoutSeconds', `must be an integer between 1 and maxTimeoutSeconds (${max}).`)
  }
  const out = config.maxOutputBytes
  if (typeof out !== 'number' || !Number.isSafeInteger(out) || out < 1) {
    bad('maxOutputBytes', 'must be a positive integer.')
  }
  if (config.failOnNonzeroExit !== undefined && typeof config.failOnNonzeroExit !== 'boolean') {
    bad('failOnNonzeroExit', 'must be a boolean when set.')
  }
  if (config.limits !== undefined && !isObject(config.limits)) {
    bad('limits', 'must be an object of resource limits when set.')
  }
}

/**
 * A deployer's session workspace must be a directory the session policy lets
 * scripts write, named absolutely, with a positive size cap: caught here, at
 * construction, rather than as a widened policy on the first call.
 */
function checkSessionWorkspace(value: unknown, allowWrite: readonly string[]): void {
  if (value === undefined) return
  if (!isObject(value)) bad('sessionWorkspace', 'must be an object.')
  const { dir, maxBytes, maxEntries } = value
  if (dir !== undefined) {
    const path = typeof dir === 'string' ? normalizeAbsolutePath(dir) : undefined
    if (path === undefined) bad('sessionWorkspace.dir', 'must be an absolute path.')
    if (!allowWrite.some((w) => isPathInside(path, w))) {
      bad(
        'sessionWorkspace.dir',
        'must lie inside scripts.policy.filesystem.allowWrite (scripts write there).',
      )
    }
  }
  if (
    maxBytes !== undefined &&
    (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1)
  ) {
    bad('sessionWorkspace.maxBytes', 'must be a positive integer.')
  }
  if (
    maxEntries !== undefined &&
    (typeof maxEntries !== 'number' || !Number.isSafeInteger(maxEntries) || maxEntries < 1)
  ) {
    bad('sessionWorkspace.maxEntries', 'must be a positive integer.')
  }
}

/**
 * The one validator of a tier-3 configuration, called by `createSkillManager`
 * and by every other entry point. Throws `E_INVALID_SKILLS_CONFIG` with a
 * message naming the field (`scripts.<field> …`) and what to fix, unless
 * `config` is usable: `hostEnvIsolated: true`; a handle, skill copy
 * (`workspace`) and translator; a well-formed session policy; interpreters
 * given as absolute program paths that `interpreterReadPaths` covers; sane
 * positive limits (`1 <= defaultTimeoutSeconds <= maxTimeoutSeconds`);
 * `undeclared` of `'allow' | 'deny'`, `dynamicContext` of `'run' | 'off'`; a session workspace inside the policy's
 * writable paths.
 */
export function validateSkillScriptConfig(config: SkillScriptConfig): void {
  if (!isObject(config)) {
    throw new SkillHostError('E_INVALID_SKILLS_CONFIG', 'scripts must be an object.')
  }
  const c = config as unknown as Record<string, unknown>
  assertHostEnvIsolated(c)
  if (!isObject(c.handle) || typeof c.handle.run !== 'function') {
    bad('handle', 'must be a SandboxHandle (e.g. createBubblewrapHandle()).')
  }
  const copy = c.workspace
  for (const method of ['materialize', 'dispose', 'createScratch', 'disposeScratch'] as const) {
    if (!isObject(copy) || typeof copy[method] !== 'function') {
      bad('workspace', `must implement ${method}() (e.g. createDirectoryWorkspace()).`)
    }
  }
  if (!isObject(c.translator) || typeof c.translator.forCall !== 'function') {
    bad('translator', 'must be a PathTranslator (createPathTranslator()).')
  }
  const allowWrite = checkPolicy(c)
  checkInterpreters(c)
  checkLimits(c)
  if (c.undeclared !== undefined && c.undeclared !== 'allow' && c.undeclared !== 'deny') {
    bad('undeclared', "must be 'allow' or 'deny'.")
  }
  if (c.dynamicContext !== undefined && c.dynamicContext !== 'run' && c.dynamicContext !== 'off') {
    bad('dynamicContext', "must be 'run' or 'off'.")
  }
  checkSessionWorkspace(c.sessionWorkspace, allowWrite)
  if (c.ownFolders !== undefined && !isPathList(c.ownFolders))
    bad('ownFolders', 'must be a list of absolute paths.')
}
