import { SkillHostError } from '../common/errors.js'
import { isPathInside, normalizeAbsolutePath } from './policy.js'
import type { CallPathTranslator, PathMount, PathTranslator } from './types.js'

/** Options of `createPathTranslator`. */
export interface PathTranslatorOptions {
  /** Sandbox path of the skill root; default `/skill`. */
  readonly skillMount?: string
  /** Sandbox path of the scratch directory; default `/work`. */
  readonly scratchMount?: string
  /**
   * Host paths that must never reach the model, beyond the call's own root and
   * scratch (e.g. the workspace base directory); redacted to `<host>`.
   */
  readonly hiddenHostPaths?: readonly string[]
}

const RESERVED = ['/proc', '/dev', '/usr', '/etc', '/bin', '/lib', '/lib64', '/tmp']

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
 * A translator mapping the skill root to `skillMount` and the scratch
 * directory to `scratchMount`. Mount points must be distinct, not nested and
 * not shadow system directories an interpreter needs. Redaction rewrites the
 * longest host path first, whole segments only.
 */
export function createPathTranslator(options: PathTranslatorOptions = {}): PathTranslator {
  const skillMount = absolute(options.skillMount ?? '/skill', 'skill mount')
  const scratchMount = absolute(options.scratchMount ?? '/work', 'scratch mount')
  if (isPathInside(skillMount, scratchMount) || isPathInside(scratchMount, skillMount)) {
    throw new SkillHostError(
      'E_INVALID_SKILLS_CONFIG',
      'The skill and scratch mounts must not contain each other.',
    )
  }
  for (const mount of [skillMount, scratchMount]) {
    if (RESERVED.some((r) => isPathInside(mount, r) || isPathInside(r, mount))) {
      throw new SkillHostError(
        'E_INVALID_SKILLS_CONFIG',
        `The sandbox mount '${mount}' overlaps a system directory; choose a fresh top-level path such as /skill.`,
      )
    }
  }
  const hidden = (options.hiddenHostPaths ?? []).map((p) => absolute(p, 'hidden host path'))
  return {
    skillMount,
    scratchMount,
    forCall({ skillRoot, scratchDir }) {
      const mounts: PathMount[] = [
        { host: absolute(skillRoot, 'skill root'), sandbox: skillMount },
        { host: absolute(scratchDir, 'scratch directory'), sandbox: scratchMount },
      ]
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
  return {
    mounts,
    toSandbox(hostPath) {
      const path = normalizeAbsolutePath(hostPath)
      if (path === undefined) return hostPath
      for (const m of mounts) {
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
