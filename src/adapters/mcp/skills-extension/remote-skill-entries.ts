import { createHash } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SkillHostError } from '../../../common/index.js'
import { type SkillManifest, validateSkillManifest } from '../../../manifest/index.js'
import { normalizeSkillPath } from '../../../skill-model/internal.js'
import type { SkillProblem } from '../../../sources/index.js'
import { isSkillFileDigest, type SkillManifestFile } from '../../../sources/index.js'
import { ListSkillsResultSchema, SKILLS_EXTENSION_LIMITS, type SkillEntry } from './protocol.js'

/** One skill a remote server lists, checked: its files by path, and the version they define. */
export interface RemoteSkill {
  readonly id: string
  /** `mcp-` and the SHA-256 of the listed files' URIs, digests and sizes: a new set is a new version. */
  readonly version: string
  readonly entry: SkillEntry
  readonly manifest: SkillManifest
  /** Every listed file, SKILL.md included, by normalized path, with its URI. */
  readonly files: ReadonlyMap<string, SkillManifestFile & { readonly uri: string }>
}

/** The most `skills/list` pages read in one discovery (a server that never stops paging is cut off). */
const MAX_PAGES = 10_000

/** Every entry of every `skills/list` page, in order; `options` (deadline, signal) go with each page's request. */
export async function listRemoteSkills(
  client: Client,
  options: { readonly timeout?: number; readonly signal?: AbortSignal } = {},
): Promise<SkillEntry[]> {
  const entries: SkillEntry[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      ListSkillsResultSchema,
      options,
    )
    entries.push(...(result.skills as SkillEntry[]))
    cursor = result.nextCursor
    if (cursor === undefined) return entries
    if (seen.has(cursor)) break
    seen.add(cursor)
  }
  throw new SkillHostError('E_SKILL_SOURCE_FAILED', 'The server kept paging skills/list; stopped.')
}

/** A version for a set of files: any change to a URI, digest or size changes it. */
function versionOf(files: readonly { uri: string; digest: string; size: number }[]): string {
  const hash = createHash('sha256')
  for (const f of [...files].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)))
    hash.update(`${f.uri}\n${f.digest}\n${f.size}\n`)
  return `mcp-${hash.digest('hex').slice(0, 32)}`
}

/** A relative path from a URI's remainder below the skill root; throws when it could leave the skill. */
function pathOf(rest: string): string {
  const decoded = rest.split('/').map(decodeURIComponent).join('/')
  const path = normalizeSkillPath(decoded)
  if (path !== decoded) throw new Error('not a normalized path')
  return path
}

/**
 * Checks one entry as the extension requires before a host may use it: a
 * complete `resources` array (not `"dynamic"`: nothing to verify), within
 * the extension's limits, each file under the skill's root exactly once
 * with a `sha256:` digest, SKILL.md among them, the URI's last segment the
 * frontmatter `name`, and a frontmatter skillhost accepts. A `SkillProblem`
 * (the skill is not served) otherwise.
 */
export function checkRemoteSkill(entry: SkillEntry, label: string): RemoteSkill | SkillProblem {
  const problem = (message: string, code = 'E_SKILL_MANIFEST_INVALID'): SkillProblem => ({
    location: `${label}:${entry.uri}`.slice(0, 300),
    code,
    message,
    severity: 'error',
  })
  if (!entry.uri.endsWith('/SKILL.md')) return problem('The entry URI names no SKILL.md.')
  const root = entry.uri.slice(0, -'/SKILL.md'.length)
  const name = decodeURIComponent(root.slice(root.lastIndexOf('/') + 1))
  if (entry.resources === 'dynamic')
    return problem('A dynamic skill lists no digests, so it cannot be verified; not loaded.')
  const resources = entry.resources
  const total = resources.reduce((sum, r) => sum + r.size, 0)
  if (
    resources.length > SKILLS_EXTENSION_LIMITS.maxFiles ||
    total > SKILLS_EXTENSION_LIMITS.maxTotalBytes
  ) {
    return problem(
      `The skill lists ${resources.length} files of ${total} bytes; the extension's limits are ${SKILLS_EXTENSION_LIMITS.maxFiles} files and ${SKILLS_EXTENSION_LIMITS.maxTotalBytes} bytes.`,
      'E_SKILL_SOURCE_TOO_LARGE',
    )
  }
  const files = new Map<string, SkillManifestFile & { uri: string }>()
  for (const r of resources) {
    if (!r.uri.startsWith(`${root}/`)) return problem('A listed file lies outside the skill.')
    if (!isSkillFileDigest(r.digest)) return problem('A listed digest is not sha256: and hex.')
    let path: string
    try {
      path = pathOf(r.uri.slice(root.length + 1))
    } catch {
      return problem('A listed file path is not a plain relative path.')
    }
    if (files.has(path)) return problem('A file is listed twice.')
    files.set(path, { path, digest: r.digest, size: r.size, uri: r.uri })
  }
  if (files.get('SKILL.md')?.uri !== entry.uri) return problem('The skill lists no SKILL.md.')
  if (entry.frontmatter.name !== name)
    return problem('The frontmatter name is not the last segment of the skill URI.')
  const verdict = validateSkillManifest(entry.frontmatter, { folderName: name })
  if (!verdict.ok || !verdict.manifest)
    return problem(`The frontmatter is invalid: ${verdict.errors.join('; ')}`.slice(0, 500))
  return {
    id: name,
    version: versionOf(resources),
    entry,
    manifest: verdict.manifest,
    files,
  }
}
