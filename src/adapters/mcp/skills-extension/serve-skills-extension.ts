import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { escapeLine, SkillHostError } from '../../../common/index.js'
import { fileType } from '../../../common/internal.js'
import type { SkillFileContent, SkillManager } from '../../../manager/index.js'
import { normalizeSkillPath } from '../../../skill-model/internal.js'
import type { SkillFileManifest } from '../../../sources/index.js'
import { parseSkillResourceUri, skillResourceUri } from '../skill-resources.js'
import { invalidParams, protocolError } from '../skill-server.js'
import {
  GetSkillRequestSchema,
  ListSkillsRequestSchema,
  SKILLS_EXTENSION_LIMITS,
  SKILLS_LIST_PAGE,
  SKILLS_LIST_PAGE_MAX,
  SKILLS_TTL_MS,
  type SkillEntry,
} from './protocol.js'
import { agentSkillsRuleBroken, listableFile, unreadableFile } from './served-skill-rules.js'

/** Options for the Skills Extension on a skill MCP server. */
export interface SkillsExtensionOptions {
  /** Skills per `skills/list` page (1 to `SKILLS_LIST_PAGE_MAX`). Default `SKILLS_LIST_PAGE`. */
  readonly pageSize?: number
  /**
   * Serve skills that break the Agent Skills rules (`agentSkillsRuleBroken`:
   * an uppercase or `_` name, a description over 1,024 characters,
   * non-string `metadata` values…). Default false: such a skill is left out
   * of `skills/list` and `skills/get`, as the extension's reference server
   * does (it stays loadable through the tools). The name must still be the
   * folder's, and every file readable, either way.
   */
  readonly lenient?: boolean
  /**
   * Told once per skill version and session why a skill is left out (the
   * reason is host-written; the id is the skill's folder name, to be quoted).
   */
  readonly onLeftOut?: (event: { readonly id: string; readonly reason: string }) => void
}

/**
 * What the extension adds to `resources/read`: the bytes of a file of a
 * skill it serves (loaded or not), checked against the digest it lists, or
 * undefined for a skill it does not serve (the loaded-skill reader answers).
 */
export type ReadServedSkillFile = (
  id: string,
  path: string,
) => Promise<SkillFileContent | undefined>

const COMPLETE = { resultType: 'complete', ttlMs: SKILLS_TTL_MS, cacheScope: 'private' } as const

/** What decides, per session, which skills the extension leaves out, and who hears why. */
interface ServeRules {
  readonly lenient: boolean
  leftOut(manifest: SkillFileManifest, reason: string): void
}

function serveRules(options: SkillsExtensionOptions): ServeRules {
  const told = new Set<string>()
  return {
    lenient: options.lenient === true,
    leftOut(manifest, reason) {
      const key = `${manifest.id}\n${manifest.version}`
      if (told.has(key) || !options.onLeftOut) return
      told.add(key)
      options.onLeftOut({ id: manifest.id, reason })
    },
  }
}

/**
 * The manifest the extension serves for `id`, or undefined when it serves
 * none: a skill kept from the model, one whose source publishes no
 * manifests, one whose folder name (its id) is not its frontmatter `name`
 * (the URI's last segment must be), one with a file no client could read
 * back (`unreadableFile`), and, unless `lenient`, one that breaks the Agent
 * Skills rules (`agentSkillsRuleBroken`). A skill beyond
 * `SKILLS_EXTENSION_LIMITS` is `E_SKILL_SOURCE_TOO_LARGE`, found before any
 * file is hashed.
 */
async function servedManifest(
  manager: SkillManager,
  id: string,
  rules: ServeRules,
): Promise<SkillFileManifest | undefined> {
  const manifest = await manager.skillManifest(id, {
    forModel: true,
    bounds: SKILLS_EXTENSION_LIMITS,
  })
  if (!manifest) return undefined
  const reason =
    manifest.frontmatter.name !== id
      ? 'its frontmatter name is not its folder name'
      : (unreadableFile(manifest) ?? (rules.lenient ? undefined : agentSkillsRuleBroken(manifest)))
  if (reason === undefined) return manifest
  rules.leftOut(manifest, reason)
  return undefined
}

/** The `Skill` entry of a manifest: `skill://<id>/SKILL.md`, the frontmatter, every file. */
function toEntry(manifest: SkillFileManifest): SkillEntry {
  return {
    uri: skillResourceUri(manifest.id, 'SKILL.md'),
    frontmatter: manifest.frontmatter,
    resources: manifest.files
      .filter((f) => listableFile(f.path))
      .map((f) => ({
        uri: skillResourceUri(manifest.id, f.path),
        digest: f.digest,
        size: f.size,
      })),
  }
}

function decodeCursor(cursor: unknown): number {
  if (cursor === undefined) return 0
  const match = typeof cursor === 'string' ? /^s:(\d{1,9})$/.exec(cursor) : null
  if (!match) throw invalidParams('cursor is not one skills/list returned.')
  return Number(match[1])
}

/** Failures while answering: model-safe text only (`renderError` redacts host paths). */
function toMcpError(err: unknown): McpError {
  if (err instanceof McpError) return err
  if (SkillHostError.isInstance(err) && err.code === 'E_SKILL_NOT_FOUND')
    return invalidParams(`No skill is served at that URI: ${err.message}`)
  // Not served: the extension's limits are what every host accepts (a skill is still loadable by tool).
  if (SkillHostError.isInstance(err) && err.code === 'E_SKILL_SOURCE_TOO_LARGE')
    return invalidParams(`Not served through skills/get: ${err.message}`)
  return protocolError(
    ErrorCode.InternalError,
    SkillHostError.isInstance(err) ? `${err.code}: ${err.message}` : 'The skill could not be read.',
  )
}

/**
 * Serves the MCP Skills Extension (SEP-2640; docs/mcp.md) on `server` over
 * `manager`'s catalog: `skills/list` pages over the model's view of the
 * catalog (the ids `list_skills` shows), each entry with the verbatim
 * frontmatter and every file's `skill://<id>/<path>` URI, `sha256:` digest
 * and size; `skills/get` answers for a SKILL.md URI. Errors are -32602 for
 * an unknown skill, a URI that is not a SKILL.md or a bad cursor. Returns the
 * reader `serveSkillResources` uses so `resources/read` serves every listed
 * file, each checked against its listed digest before it is sent.
 */
export function serveSkillsExtension(
  server: Server,
  manager: SkillManager,
  options: SkillsExtensionOptions = {},
): ReadServedSkillFile {
  const pageSize = options.pageSize ?? SKILLS_LIST_PAGE
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > SKILLS_LIST_PAGE_MAX)
    throw new RangeError(`pageSize must be an integer from 1 to ${SKILLS_LIST_PAGE_MAX}`)
  const rules = serveRules(options)

  server.setRequestHandler(ListSkillsRequestSchema, async (request) => {
    const offset = decodeCursor(request.params?.cursor)
    try {
      const page = manager.search({ forModel: true, offset, limit: pageSize })
      const skills: SkillEntry[] = []
      for (const row of page.entries) {
        const manifest = await servedManifest(manager, row.id, rules).catch((err: unknown) => {
          // A skill that cannot be read right now is left out of this page (a partial listing).
          if (SkillHostError.isInstance(err)) return undefined
          throw err
        })
        if (manifest) skills.push(toEntry(manifest))
      }
      const next = offset + page.entries.length
      return {
        ...COMPLETE,
        skills,
        ...(page.entries.length > 0 && next < page.total ? { nextCursor: `s:${next}` } : {}),
      }
    } catch (err) {
      throw toMcpError(err)
    }
  })

  server.setRequestHandler(GetSkillRequestSchema, async (request) => {
    const uri = request.params?.uri
    if (typeof uri !== 'string') throw invalidParams('skills/get needs params.uri, a SKILL.md URI.')
    const { id, path } = parseSkillResourceUri(uri)
    if (path !== 'SKILL.md')
      throw invalidParams('That URI names no SKILL.md; skills/get takes one.')
    // One spelling per skill: an entry is answered only under the URI it is listed with.
    const canonical = skillResourceUri(id, path)
    if (uri !== canonical)
      throw invalidParams(
        `That URI is not spelled as skills/list lists it; ask for ${JSON.stringify(escapeLine(canonical.slice(0, 200)))}.`,
      )
    try {
      const manifest = await servedManifest(manager, id, rules)
      if (!manifest)
        throw invalidParams(`No skill is served at that URI (skill "${id.slice(0, 80)}").`)
      return { ...COMPLETE, skill: toEntry(manifest) }
    } catch (err) {
      throw toMcpError(err)
    }
  })

  return async (id, path) => {
    let manifest: SkillFileManifest | undefined
    try {
      manifest = await servedManifest(manager, id, rules)
    } catch {
      return undefined
    }
    if (!manifest) return undefined
    const rel = normalizeSkillPath(path)
    const bytes = await manifest.read(rel)
    return { path: rel, size: bytes.byteLength, mimeType: fileType(rel, bytes).mediaType, bytes }
  }
}
