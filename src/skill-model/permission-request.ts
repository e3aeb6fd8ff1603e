import { normalizeSkillPath } from './skill-path.js'

// A skill's permission request: what it asks the host for, never what it gets.
// The format is Codex's `permissions` in `agents/openai.yaml` (the same key in
// `skillhost.yaml`): `network`, `file_system: { read: [...], write: [...] }`.
// The input is untrusted YAML; every problem becomes a warning, never a throw.

/** The most paths one list (`read` or `write`) may hold; the rest are dropped, with a warning. */
export const MAX_PERMISSION_PATHS = 32
/** The longest path an entry may be, in UTF-16 units. */
export const MAX_PERMISSION_PATH_LENGTH = 1024

/**
 * What a skill asks for, normalized. Each path is either absolute (`/data/x`:
 * a host path, lexically normalized, never with a `..` segment) or relative
 * (`data/x`: inside the skill folder, by the skill-path rule). A request
 * grants nothing: the session policy and the gate decide (tier 3).
 */
export interface SkillPermissionRequest {
  /** The skill asks for network access (`network: true`, or a mapping). Never granted in this version. */
  readonly network: boolean
  readonly read: readonly string[]
  readonly write: readonly string[]
}

/**
 * Why a request was or was not granted:
 * - `granted`: within the session policy and approved by the gate; the path is bound;
 * - `inside-skill`: a relative read, which the skill's own copy already serves at its mount;
 * - `skill-read-only`: a relative write; the skill copy is read-only (scripts write to the workspace);
 * - `beyond-session-policy`: the deployer's session policy does not allow it (`E_SKILL_SCRIPT_POLICY_WIDENED`);
 * - `skillhost-folder`: it overlaps skillhost's own folders (skill copies, scratch, session
 *   workspaces), which the session policy holds for skillhost, not for grants (same code);
 * - `gate-refused` / `gate-unavailable`: the gate refused the requested profile, or could not answer;
 * - `network-unsupported`: this version never grants network (no allow-list proxy yet);
 * - `no-scripts`: the host offers the skill no script tools, so nothing would use it.
 */
export type PermissionOutcomeReason =
  | 'granted'
  | 'inside-skill'
  | 'skill-read-only'
  | 'beyond-session-policy'
  | 'skillhost-folder'
  | 'gate-refused'
  | 'gate-unavailable'
  | 'network-unsupported'
  | 'no-scripts'

/** What became of one requested permission, as the load result names it. */
export interface PermissionOutcome {
  readonly kind: 'read' | 'write' | 'network'
  /** The normalized path (absent for network). */
  readonly path?: string
  readonly granted: boolean
  readonly reason: PermissionOutcomeReason
  /** `E_SKILL_SCRIPT_POLICY_WIDENED` for a request beyond the session policy. */
  readonly code?: 'E_SKILL_SCRIPT_POLICY_WIDENED'
}

/** A normalized request (undefined when the skill asks for nothing) and the problems found. */
export interface PermissionRequestParse {
  readonly request: SkillPermissionRequest | undefined
  readonly warnings: readonly string[]
}

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A short, quoted rendering of untrusted text for a warning. */
function shown(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}

/** An absolute path's lexical form (`//a/./b/` → `/a/b`), or why it is refused. */
function absolutePath(raw: string): string | { problem: string } {
  const segments: string[] = []
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') return { problem: 'traverses to a parent directory (..)' }
    segments.push(segment)
  }
  return `/${segments.join('/')}`
}

/** One path entry: absolute, or relative to the skill; anything else is a problem. */
function permissionPath(raw: unknown): string | { problem: string } {
  if (typeof raw !== 'string') return { problem: `is not a string (${typeof raw})` }
  if (raw.length === 0) return { problem: 'is empty' }
  if (raw.length > MAX_PERMISSION_PATH_LENGTH)
    return { problem: `is longer than ${MAX_PERMISSION_PATH_LENGTH} characters` }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { problem: 'contains a control character' }
  if (raw.startsWith('/')) return absolutePath(raw)
  if (raw === '~' || raw.startsWith('~/'))
    return { problem: 'is relative to a home directory; write the absolute path' }
  try {
    return normalizeSkillPath(raw)
  } catch {
    return { problem: 'is neither absolute nor a plain path inside the skill' }
  }
}

function pathList(value: unknown, at: string, warnings: string[]): string[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) {
    warnings.push(`${at} must be a list of paths; it was ignored`)
    return []
  }
  const out: string[] = []
  if (value.length > MAX_PERMISSION_PATHS) {
    warnings.push(
      `${at} lists ${value.length} paths; only the first ${MAX_PERMISSION_PATHS} are requested`,
    )
  }
  value.slice(0, MAX_PERMISSION_PATHS).forEach((entry, i) => {
    const path = permissionPath(entry)
    if (typeof path === 'string') {
      if (!out.includes(path)) out.push(path)
      return
    }
    const quoted = typeof entry === 'string' ? ` ${shown(entry)}` : ''
    warnings.push(`${at}[${i}]${quoted} ${path.problem}; it was ignored`)
  })
  return out
}

const KNOWN = new Set(['network', 'file_system'])
const FS_KNOWN = new Set(['read', 'write'])

/**
 * The one validator of a permission request, for every entry point (the
 * `agents/openai.yaml` reader, the `skillhost.yaml` parser, a descriptor a
 * source built in code). `raw` is the value of `permissions:`; `at` prefixes
 * each warning. Never throws: an unknown shape, a non-string entry, a `..`
 * or `~` path, a list past `MAX_PERMISSION_PATHS` each becomes a warning and
 * that part is not requested; the rest of the request stands.
 */
export function normalizePermissionRequest(
  raw: unknown,
  at = 'permissions',
): PermissionRequestParse {
  const warnings: string[] = []
  if (raw === undefined || raw === null) return { request: undefined, warnings }
  if (!isObj(raw)) {
    warnings.push(`${at} must be a mapping (network, file_system); it was ignored`)
    return { request: undefined, warnings }
  }
  for (const key of Object.keys(raw).slice(0, 20)) {
    if (!KNOWN.has(key)) warnings.push(`${at}.${shown(key)} is not honoured; it was ignored`)
  }
  const net = raw.network
  const network = net === true || isObj(net)
  if (net !== undefined && net !== null && typeof net !== 'boolean' && !isObj(net))
    warnings.push(`${at}.network must be true, false or a mapping; it was ignored`)
  let read: string[] = []
  let write: string[] = []
  const fs = raw.file_system
  if (isObj(fs)) {
    for (const key of Object.keys(fs).slice(0, 20)) {
      if (!FS_KNOWN.has(key))
        warnings.push(`${at}.file_system.${shown(key)} is not honoured; it was ignored`)
    }
    read = pathList(fs.read, `${at}.file_system.read`, warnings)
    write = pathList(fs.write, `${at}.file_system.write`, warnings)
  } else if (fs !== undefined && fs !== null) {
    warnings.push(`${at}.file_system must be a mapping (read, write); it was ignored`)
  }
  if (!network && read.length === 0 && write.length === 0) return { request: undefined, warnings }
  return { request: { network, read, write }, warnings }
}

/**
 * A request already in `SkillPermissionRequest` form (a descriptor built in
 * code) checked by the same rules: what a source hands the manager is
 * untrusted too.
 */
export function checkPermissionRequest(value: unknown): PermissionRequestParse {
  if (value === undefined || value === null) return { request: undefined, warnings: [] }
  if (!isObj(value))
    return { request: undefined, warnings: ['permissions must be an object; it was ignored'] }
  return normalizePermissionRequest(
    { network: value.network === true, file_system: { read: value.read, write: value.write } },
    'permissions',
  )
}

/** True when `path` (normalized) names a host path rather than one inside the skill. */
export function isHostPermissionPath(path: string): boolean {
  return path.startsWith('/')
}
