import { SkillHostError } from '../../../common/errors.js'
import { PLUGIN_MOUNT } from '../../../skill-model/plugin-mount.js'
import { isPathInside, normalizeAbsolutePath } from '../policy/policy.js'
import type { CallPathTranslator, PathMount, PathTranslator } from './types.js'

/** Options of `createPathTranslator`. */
export interface PathTranslatorOptions {
  /** Sandbox path of the skill root; default `/skill`. */
  readonly skillMount?: string
  /** Sandbox path of the per-call scratch (a capped tmpfs, also HOME and TMPDIR); default `/tmp`. */
  readonly scratchMount?: string
  /** Sandbox path of the session workspace (read-write, the cwd of every call); default `/work`. */
  readonly workspaceMount?: string
  /**
   * Host paths that must never reach the model, beyond the call's own root and
   * scratch (e.g. the workspace base directory); redacted to `<host>`.
   */
  readonly hiddenHostPaths?: readonly string[]
}

/**
 * Where a skill in a Claude Code plugin sees its plugin root, read-only
 * (its home: `skill-model/plugin-mount.ts`); the skill itself is at its
 * place below (`pluginSkillMount`), and the skill mount (`/skill`) is a
 * symlink to it.
 */
export { PLUGIN_MOUNT }

/**
 * The sandbox path of a plugin skill's folder: its place below `PLUGIN_MOUNT`
 * (`/plugin/skills/x`). Its scripts run by this path, so `$0`, `__file__`
 * and `import.meta` lead to the plugin's files by the same `..` as on disk.
 */
export function pluginSkillMount(skillPath: string): string {
  return `${PLUGIN_MOUNT}/${skillPath}`
}

const RESERVED = ['/proc', '/dev', '/usr', '/etc', '/bin', '/sbin', '/lib', '/lib64']

function absolute(path: string, what: string): string {
  const normalized = normalizeAbsolutePath(path)
  if (normalized === undefined || normalized === '/') {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      `The ${what} must be an absolute path below '/'.`,
    )
  }
  return normalized
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * A translator mapping the skill root to `skillMount` (for a skill in a
 * plugin, the plugin root to `PLUGIN_MOUNT` and the skill root to its place
 * below, `pluginSkillMount`), the per-call scratch
 * to `scratchMount` and the session workspace (when the call has one) to
 * `workspaceMount`. The three mount points must be distinct, not nested and
 * not shadow system directories an interpreter needs. Redaction rewrites the
 * longest host path first, whole segments only.
 */
export function createPathTranslator(options: PathTranslatorOptions = {}): PathTranslator {
  const skillMount = absolute(options.skillMount ?? '/skill', 'skill mount')
  const scratchMount = absolute(options.scratchMount ?? '/tmp', 'scratch mount')
  const workspaceMount = absolute(options.workspaceMount ?? '/work', 'workspace mount')
  const all = [skillMount, scratchMount, workspaceMount, PLUGIN_MOUNT]
  for (const [i, a] of all.entries()) {
    for (const b of all.slice(i + 1)) {
      if (isPathInside(a, b) || isPathInside(b, a)) {
        throw new SkillHostError(
          'E_INVALID_SKILLS_CONFIG',
          'The skill, scratch and workspace mounts must not contain each other.',
        )
      }
    }
    if (RESERVED.some((r) => isPathInside(a, r) || isPathInside(r, a))) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        `The sandbox mount '${a}' overlaps a system directory; choose a fresh top-level path such as /skill.`,
      )
    }
  }
  const hidden = (options.hiddenHostPaths ?? []).map((p) => absolute(p, 'hidden host path'))

  return {
    skillMount,
    scratchMount,
    workspaceMount,
    hiddenHostPaths: hidden,
    forCall({ skillRoot, scratchDir, workspaceDir, interpreterMounts, plugin }) {
      const mounts: PathMount[] = [
        plugin === undefined
          ? { host: absolute(skillRoot, 'skill root'), sandbox: skillMount }
          : {
              host: absolute(skillRoot, 'skill root'),
              sandbox: pluginSkillMount(plugin.skillPath),
            },
        { host: absolute(scratchDir, 'scratch directory'), sandbox: scratchMount },
      ]
      if (plugin !== undefined) {
        mounts.push({ host: absolute(plugin.root, 'plugin root'), sandbox: PLUGIN_MOUNT })
      }
      if (workspaceDir !== undefined) {
        mounts.push({
          host: absolute(workspaceDir, 'workspace directory'),
          sandbox: workspaceMount,
        })
      }
      for (const m of interpreterMounts ?? []) {
        const sandbox = absolute(m.sandbox, 'interpreter mount')
        // Bound inside /work it would leave mount points in the user's workspace.
        if (
          [...all, ...RESERVED].some((r) => isPathInside(sandbox, r) || isPathInside(r, sandbox))
        ) {
          throw new SkillHostError(
            'E_INVALID_SKILLS_CONFIG',
            `An interpreter mount must not lie in or over the skill, scratch or workspace mount or a system directory; use a path under /opt/skillhost.`,
          )
        }
        mounts.push({ host: absolute(m.host, 'interpreter mount'), sandbox })
      }
      return bindTranslator(mounts, hidden)
    },
  }
}

function bindTranslator(
  mounts: readonly PathMount[],
  hidden: readonly string[],
): CallPathTranslator {
  const replacements = [
    ...mounts.map((m) => ({ from: m.host, to: m.sandbox })),
    ...hidden.map((h) => ({ from: h, to: '<host>' })),
  ].sort((a, b) => b.from.length - a.from.length)
  // One pass with an alternation, longest first, so a replacement is never
  // rewritten again; the lookahead keeps `/a/bc` from matching `/a/b`.
  const pattern =
    replacements.length === 0
      ? undefined
      : new RegExp(
          `(?:${replacements.map((r) => escapeRegExp(r.from)).join('|')})(?=[/\\s'"\`:;,)\\]}]|$)`,
          'g',
        )
  const lookup = new Map(replacements.map((r) => [r.from, r.to]))
  // A mount inside another (a venv inside an installation) is the nearer one.
  const longestFirst = [...mounts].sort((a, b) => b.host.length - a.host.length)
  return {
    mounts,
    toSandbox(hostPath) {
      const path = normalizeAbsolutePath(hostPath)
      if (path === undefined) return hostPath
      for (const m of longestFirst) {
        if (isPathInside(path, m.host)) return m.sandbox + path.slice(m.host.length)
      }
      return path
    },
    redact(text) {
      return pattern === undefined
        ? text
        : text.replace(pattern, (match) => lookup.get(match) ?? '<host>')
    },
  }
}
