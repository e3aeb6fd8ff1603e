/** One package a locked environment installs: exactly this version, from an archive with this sha256. */
export interface LockedPackage {
  readonly name: string
  readonly version: string
  /** Lowercase hex sha256 of the wheel or sdist pip installed it from. */
  readonly sha256?: string
}

/**
 * A python environment pinned in a lockfile: the requirement set a skill's
 * scripts declared (normalized, sorted) and every package pip resolved for
 * it, so a locked deployment rebuilds the same environment (`--require-hashes`).
 */
export interface LockedEnvironment {
  readonly requirements: readonly string[]
  readonly packages: readonly LockedPackage[]
}

/** The most environments one skill may pin, and packages one environment. */
export const MAX_LOCKED_ENVIRONMENTS = 64
export const MAX_LOCKED_PACKAGES = 2_000

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected
const TEXT = /^[^\u0000-\u001f\u007f]{1,400}$/
const SHA256 = /^[0-9a-f]{64}$/

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Validates a lock entry's optional `environments`: at most
 * `MAX_LOCKED_ENVIRONMENTS`, each `{ requirements: string[], packages: [{
 * name, version, sha256? }] }` with bounded strings and hex digests. Calls
 * `invalid(problem)` (which throws) for anything else. Lockfiles written
 * before environments existed have none and read as before.
 */
export function toLockedEnvironments(
  value: unknown,
  invalid: (problem: string) => never,
): LockedEnvironment[] {
  if (!Array.isArray(value) || value.length > MAX_LOCKED_ENVIRONMENTS)
    invalid(`environments is not a list of at most ${MAX_LOCKED_ENVIRONMENTS}`)
  return value.map((env, i) => {
    const where = `environments[${i}]`
    if (!isRecord(env) || Object.keys(env).some((k) => k !== 'requirements' && k !== 'packages'))
      invalid(`${where} is not { requirements, packages }`)
    const { requirements, packages } = env
    if (
      !Array.isArray(requirements) ||
      requirements.length > MAX_LOCKED_PACKAGES ||
      !requirements.every((r) => typeof r === 'string' && TEXT.test(r))
    )
      invalid(`${where}.requirements is not a list of requirement strings`)
    if (!Array.isArray(packages) || packages.length > MAX_LOCKED_PACKAGES)
      invalid(`${where}.packages is not a list of at most ${MAX_LOCKED_PACKAGES}`)
    return Object.freeze({
      requirements: Object.freeze([...(requirements as string[])]),
      packages: Object.freeze(
        packages.map((p, j) => {
          const ok =
            isRecord(p) &&
            typeof p.name === 'string' &&
            TEXT.test(p.name) &&
            typeof p.version === 'string' &&
            TEXT.test(p.version) &&
            (p.sha256 === undefined || (typeof p.sha256 === 'string' && SHA256.test(p.sha256))) &&
            Object.keys(p).every((k) => k === 'name' || k === 'version' || k === 'sha256')
          if (!ok) invalid(`${where}.packages[${j}] is not { name, version, sha256? }`)
          const { name, version, sha256 } = p as unknown as LockedPackage
          return Object.freeze({ name, version, ...(sha256 === undefined ? {} : { sha256 }) })
        }),
      ),
    })
  })
}
