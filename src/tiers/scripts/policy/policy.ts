import { posix } from 'node:path'
import { SkillHostError } from '../../../common/errors.js'

/**
 * What a sandboxed process may touch, in the shape of Anthropic's
 * sandbox-runtime: absolute host paths and domain names. A deny entry carves a
 * hole out of an allow entry that contains it. `allowWrite` entries are also
 * readable.
 */
export interface SandboxPolicy {
  readonly filesystem: {
    readonly allowRead: readonly string[]
    readonly denyRead: readonly string[]
    readonly allowWrite: readonly string[]
    readonly denyWrite: readonly string[]
  }
  readonly network: {
    readonly allowedDomains: readonly string[]
  }
}

/**
 * Host paths a skill requested that the session policy allows and the gate
 * approved (see `PermissionGrants`): absolute, normalized. Writable entries
 * are readable too.
 */
export interface PolicyGrant {
  readonly read: readonly string[]
  readonly write: readonly string[]
}

/** Inputs of `derivePolicy`: the host paths one script call needs. */
export interface DerivePolicyInput {
  /** The materialized skill root (read-only in the sandbox). */
  readonly skillRoot: string
  /** For a skill in a plugin: the plugin copy's root (holding `skillRoot`), read-only. */
  readonly pluginRoot?: string
  /** The fresh per-call scratch directory (a capped tmpfs in the sandbox). */
  readonly scratchDir: string
  /** The session workspace, writable and persistent across calls; absent for a call without one. */
  readonly workspaceDir?: string
  /** Paths the interpreters need to read (e.g. `/usr`), as the deployer listed them. */
  readonly interpreterReadPaths: readonly string[]
  /** The session policy; its deny entries that fall inside the derived allows are carried over. */
  readonly session: SandboxPolicy
  /** What the skill's approved permission request adds (read-only and writable binds). */
  readonly granted?: PolicyGrant
}

/**
 * Normalizes an absolute POSIX path lexically (`//a/./b/` → `/a/b`). Returns
 * `undefined` for anything relative, empty or containing NUL, so callers can
 * treat it as an invalid entry rather than guessing a base directory.
 */
export function normalizeAbsolutePath(path: string): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) return undefined
  const normalized = posix.normalize(path)
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized
}

/**
 * True when `child` is `parent` or lies below it, by whole path segments:
 * `/a/bc` is not inside `/a/b`. Both are normalized first; a relative path is
 * never inside anything.
 */
export function isPathInside(child: string, parent: string): boolean {
  const c = normalizeAbsolutePath(child)
  const p = normalizeAbsolutePath(parent)
  if (c === undefined || p === undefined) return false
  return c === p || p === '/' || c.startsWith(`${p}/`)
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)]
}

function must(path: string, what: string): string {
  const normalized = normalizeAbsolutePath(path)
  if (normalized === undefined) {
    throw new SkillHostError(
      'E_SKILL_SCRIPT_POLICY_WIDENED',
      `The ${what} is not an absolute path.`,
      { data: { entry: what }, person: `The ${what} '${path}' is not an absolute path.` },
    )
  }
  return normalized
}

/** The session's deny entries (normalized, deduplicated) that lie inside one of `allows`. */
function carried(denies: readonly string[], allows: readonly string[]): string[] {
  return unique(
    denies
      .map((d) => normalizeAbsolutePath(d))
      .filter((d): d is string => d !== undefined && allows.some((a) => isPathInside(d, a))),
  )
}

/** A policy of exactly these allows, with the session's denies inside them carried over. */
function withCarriedDenies(
  allowRead: string[],
  allowWrite: string[],
  session: SandboxPolicy,
): SandboxPolicy {
  return {
    filesystem: {
      allowRead,
      denyRead: carried(session.filesystem.denyRead, [...allowRead, ...allowWrite]),
      allowWrite,
      denyWrite: carried(session.filesystem.denyWrite, allowWrite),
    },
    network: { allowedDomains: [] },
  }
}

/**
 * The per-call policy: read = the skill root + the interpreter read paths
 * (+ granted reads), write = the scratch directory, the session workspace (if
 * any) and granted writes, network = none. Session deny entries lying inside
 * a derived allow are carried over so the derived policy never grants what
 * the session carved out. The result is normalized and deduplicated; it is
 * not yet checked — call `assertPolicySubset`.
 */
export function derivePolicy(input: DerivePolicyInput): SandboxPolicy {
  const allowRead = unique([
    must(input.skillRoot, 'skill root'),
    ...(input.pluginRoot === undefined ? [] : [must(input.pluginRoot, 'plugin root')]),
    ...input.interpreterReadPaths.map((p) => must(p, 'interpreter read path')),
    ...(input.granted?.read ?? []).map((p) => must(p, 'granted read path')),
  ])
  const allowWrite = unique([
    must(input.scratchDir, 'scratch directory'),
    ...(input.workspaceDir === undefined ? [] : [must(input.workspaceDir, 'session workspace')]),
    ...(input.granted?.write ?? []).map((p) => must(p, 'granted write path')),
  ])
  return withCarriedDenies(allowRead, allowWrite, input.session)
}

/**
 * The policy that grants exactly `grant`, with the session's deny entries
 * inside it carried over as `derivePolicy` carries them: what one requested
 * permission is judged by (`assertPolicySubset` against the session). Throws
 * `E_SKILL_SCRIPT_POLICY_WIDENED` for a path that is not absolute.
 */
export function grantPolicy(grant: PolicyGrant, session: SandboxPolicy): SandboxPolicy {
  return withCarriedDenies(
    unique(grant.read.map((p) => must(p, 'requested read path'))),
    unique(grant.write.map((p) => must(p, 'requested write path'))),
    session,
  )
}

function widened(message: string, kind: string): never {
  throw new SkillHostError('E_SKILL_SCRIPT_POLICY_WIDENED', message, { data: { kind } })
}

function domainAllowed(domain: string, allowed: readonly string[]): boolean {
  const d = domain.toLowerCase()
  return allowed.some((entry) => {
    const e = entry.toLowerCase()
    return e === d || (e.startsWith('*.') && d.endsWith(e.slice(1)) && d.length > e.length - 1)
  })
}

/**
 * Throws `E_SKILL_SCRIPT_POLICY_WIDENED`, naming the first offending entry,
 * unless `derived` grants nothing `session` does not: every read entry lies
 * inside a session read or write entry, every write entry inside a session
 * write entry, no derived allow lies inside a session deny, every session deny
 * inside a derived allow is denied again by `derived`, and every domain is
 * allowed by the session. Containment is by whole path segments.
 */
export function assertPolicySubset(derived: SandboxPolicy, session: SandboxPolicy): void {
  const s = session.filesystem
  const d = derived.filesystem
  const sessionReadable = [...s.allowRead, ...s.allowWrite]
  const denies = [
    { session: s.denyRead, derived: d.denyRead, label: 'denyRead' },
    { session: s.denyWrite, derived: d.denyWrite, label: 'denyWrite' },
  ]
  const check = (entry: string, kind: 'allowRead' | 'allowWrite', within: readonly string[]) => {
    const path = normalizeAbsolutePath(entry)
    if (path === undefined)
      widened(`The derived ${kind} entry '${entry}' is not an absolute path.`, kind)
    if (!within.some((w) => isPathInside(path, w))) {
      widened(
        `The derived ${kind} entry '${path}' lies outside the session policy's ${kind}.`,
        kind,
      )
    }
    // A write entry must respect both deny lists; a read entry only denyRead.
    for (const deny of kind === 'allowWrite' ? denies : denies.slice(0, 1)) {
      for (const denied of deny.session) {
        if (isPathInside(path, denied)) {
          widened(
            `The derived ${kind} entry '${path}' lies inside the session's ${deny.label} '${denied}'.`,
            kind,
          )
        }
        if (isPathInside(denied, path) && !deny.derived.some((x) => isPathInside(denied, x))) {
          widened(
            `The derived ${kind} entry '${path}' would expose the session's ${deny.label} '${denied}'; deny it in the derived policy too.`,
            kind,
          )
        }
      }
    }
  }
  for (const entry of d.allowRead) check(entry, 'allowRead', sessionReadable)
  for (const entry of d.allowWrite) check(entry, 'allowWrite', s.allowWrite)
  for (const domain of derived.network.allowedDomains) {
    if (!domainAllowed(domain, session.network.allowedDomains)) {
      widened(
        `The derived policy allows the domain '${domain}', which the session policy does not.`,
        'allowedDomains',
      )
    }
  }
}

/** A policy that grants nothing: no reads, no writes, no network. */
export function emptyPolicy(): SandboxPolicy {
  return {
    filesystem: { allowRead: [], denyRead: [], allowWrite: [], denyWrite: [] },
    network: { allowedDomains: [] },
  }
}
