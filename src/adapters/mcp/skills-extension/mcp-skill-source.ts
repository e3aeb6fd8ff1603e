import { isDeepStrictEqual } from 'node:util'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SkillHostError } from '../../../common/index.js'
import { decodeSkillText, parseSkillMd } from '../../../manifest/index.js'
import { normalizeSkillPath } from '../../../skill-model/internal.js'
import type {
  DiscoveredSkill,
  DiscoverOptions,
  SkillDescriptor,
  SkillFileStat,
  SkillLock,
  SkillProblem,
  SkillRef,
  SkillSnapshot,
  SkillSource,
  SourceReadOptions,
} from '../../../sources/index.js'
import {
  bytesToStream,
  type SkillFileManifest,
  type SkillManifestOptions,
  skillFileDigest,
} from '../../../sources/index.js'
import { checkManifestBounds } from '../../../sources/internal.js'
import { SKILLS_EXTENSION_ID } from './protocol.js'
import { remoteDescriptor } from './remote-descriptor.js'
import { RemoteListChanges } from './remote-list-changes.js'
import { eachAtMost, RemoteRequests } from './remote-requests.js'
import { checkRemoteSkill, type RemoteSkill } from './remote-skill-entries.js'
import { remotePinProblem } from './remote-skill-pin.js'

/** Options for `McpSkillSource`. */
export interface McpSkillSourceOptions {
  /** A connected client of a server that declares the Skills Extension. */
  readonly client: Client
  /**
   * The host's own label for that server (never its self-reported name): the
   * source's id, and the origin shown with its skills. Default `mcp`.
   */
  readonly id?: string
  /**
   * A lockfile in force (`readSkillLock`), made from disk or from a server:
   * a skill is served only when the lock holds its id with exactly the files
   * the server lists (path, size and `sha256:` digest), compared without
   * fetching a byte. Any other is `E_SKILL_NOT_PINNED` (`not-in-lock`, or
   * `changed-since-pinned` naming the paths that differ) and not served; a
   * version-1 entry, which records no files, cannot be compared and is
   * refused too (lock again to write version 2).
   */
  readonly lock?: SkillLock
  /**
   * Follow the server's `notifications/resources/list_changed` (skillhost's
   * server sends it whenever its catalog changes): `onDidChange` listeners
   * are told, so a manager over this source rediscovers. While anyone
   * listens, this source is the client's handler for that notification (the
   * SDK keeps one per method), calling the handler the host had set first and
   * putting it back when the last listener leaves. Notices are gathered for
   * `debounceMs` (default 100) after the first of a burst and told once, so a
   * flood of notices costs a few rediscoveries. Default true; a host that
   * would rather pass the notice on itself gives false and calls `changed()`
   * (debounced alike).
   */
  readonly watch?: boolean | { readonly debounceMs?: number }
  /**
   * The longest this source waits for the server to answer one request
   * (`skills/list` page, `resources/read`), in milliseconds; past it the
   * request is abandoned and fails with `E_SKILL_SOURCE_FAILED`. Default
   * 20,000 (the MCP SDK's own default is 60 s).
   */
  readonly requestTimeoutMs?: number
}

/** Files of one skill fetched at once by `prefetch`. */
const PREFETCH_CONCURRENCY = 8

const encoder = new TextEncoder()

/** The bytes of a `resources/read` result's one content item. */
function contentBytes(result: { contents: readonly unknown[] }): Uint8Array {
  const c = result.contents[0] as { text?: unknown; blob?: unknown } | undefined
  if (typeof c?.blob === 'string') return new Uint8Array(Buffer.from(c.blob, 'base64'))
  if (typeof c?.text === 'string') return encoder.encode(c.text)
  throw new SkillHostError('E_SKILL_SOURCE_FAILED', 'The server sent no content for a skill file.')
}

/**
 * A `SkillSource` over an MCP server implementing the Skills Extension
 * (docs/mcp.md): `discover` pages `skills/list` and serves every entry that
 * passes `checkRemoteSkill` (others are reported, not served); a skill's
 * version is the digest of its listed files, so approvals and locks bind to
 * the manifest. Files are fetched with `resources/read` only when read, and
 * each is checked against its listed size and `sha256:` digest before use;
 * the fetched SKILL.md's frontmatter must equal the entry's. A mismatch is
 * `E_SKILL_DIGEST_MISMATCH` and that version is not served again. Verified
 * bytes are kept in memory for the version current. A skill's `module` is
 * never imported (remote code does not run in this process); its scripts and
 * isolated tools run contained like any others.
 */
export class McpSkillSource implements SkillSource {
  readonly id: string
  readonly #client: Client
  #skills = new Map<string, RemoteSkill>()
  readonly #refused = new Set<string>()
  readonly #bytes = new Map<string, Uint8Array>()
  readonly #lock: SkillLock | undefined
  readonly #changes: RemoteListChanges
  readonly #requests: RemoteRequests

  constructor(options: McpSkillSourceOptions) {
    this.#client = options.client
    this.id = options.id ?? 'mcp'
    this.#lock = options.lock
    this.#requests = new RemoteRequests(options.client, this.id, options.requestTimeoutMs)
    const watch = options.watch
    this.#changes = new RemoteListChanges(
      options.client,
      watch !== false,
      typeof watch === 'object' ? watch.debounceMs : undefined,
    )
  }

  /** Calls `listener` when the server's skill list may have changed (see `McpSkillSourceOptions.watch`). */
  onDidChange(listener: () => void): () => void {
    return this.#changes.subscribe(listener)
  }

  /** Tells `onDidChange` listeners the server's list may have changed: for a host handling the notification itself. */
  changed(): void {
    this.#changes.changed()
  }

  /** Why a listed entry is not served (in the order checked), or undefined when it is. */
  #unserved(
    checked: RemoteSkill | SkillProblem,
    uri: string,
    served: ReadonlyMap<string, RemoteSkill>,
  ): SkillProblem | undefined {
    if (!('version' in checked)) return checked
    const where = { location: `${this.id}:${uri}`.slice(0, 300), id: checked.id }
    if (served.has(checked.id))
      return {
        ...where,
        code: 'E_SKILL_SHADOWED',
        message: `Another skill of this server is named "${checked.id}"; the first listed is served.`,
        severity: 'warning',
      }
    const unpinned = this.#lock && remotePinProblem(this.#lock, checked, where.location)
    if (unpinned) return unpinned
    if (this.#refused.has(checked.version))
      return {
        ...where,
        code: 'E_SKILL_DIGEST_MISMATCH',
        message: 'This version of the skill failed verification; it is not served.',
        severity: 'error',
      }
    return undefined
  }

  async *discover(options: DiscoverOptions = {}): AsyncIterable<DiscoveredSkill> {
    for (const skill of await this.discoverBatch(options)) yield skill
  }

  async discoverBatch(options: DiscoverOptions = {}): Promise<readonly DiscoveredSkill[]> {
    const report = options.report ?? (() => undefined)
    if (!this.#client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION_ID]) {
      throw new SkillHostError(
        'E_SKILL_SOURCE_FAILED',
        `The server behind source "${this.id}" does not declare the Skills Extension.`,
      )
    }
    const entries = await this.#requests.list(options.signal)
    const skills = new Map<string, RemoteSkill>()
    for (const entry of entries) {
      const checked = checkRemoteSkill(entry, this.id)
      const problem = this.#unserved(checked, entry.uri, skills)
      if (problem) report(problem)
      else skills.set((checked as RemoteSkill).id, checked as RemoteSkill)
    }
    this.#skills = skills
    // Verified bytes of versions no longer listed are dropped.
    const current = new Set([...skills.values()].map((s) => s.version))
    for (const key of this.#bytes.keys())
      if (!current.has(key.slice(0, key.indexOf('\n')))) this.#bytes.delete(key)
    return [...skills.values()].map((s) => this.#discovered(s))
  }

  #discovered(s: RemoteSkill): DiscoveredSkill {
    const m = s.manifest
    return {
      id: s.id,
      version: s.version,
      name: m.name,
      description: m.description,
      ...(m.license !== undefined && { license: m.license }),
      ...(m.compatibility !== undefined && { compatibility: m.compatibility }),
      ...(m.metadata !== undefined && { metadata: m.metadata }),
      // allowed-tools from a server is a request, never honoured (the spec forbids it).
      ...(m.extra['disable-model-invocation'] === true && {
        disableModelInvocation: true as const,
      }),
      location: `${this.id}:${s.entry.uri}`,
    }
  }

  #current(ref: SkillRef): RemoteSkill {
    const skill = this.#skills.get(ref.id)
    if (!skill || skill.version !== ref.version || this.#refused.has(skill.version)) {
      throw new SkillHostError(
        'E_SKILL_NOT_FOUND',
        `Skill "${ref.id}" at version "${ref.version}" is not current; list skills again.`,
        { data: { id: ref.id, version: ref.version } },
      )
    }
    return skill
  }

  /** One listed file's bytes, fetched once and verified against the entry; refuses the version on a mismatch. */
  async #file(skill: RemoteSkill, path: string, signal?: AbortSignal): Promise<Uint8Array> {
    const rel = normalizeSkillPath(path)
    const listed = skill.files.get(rel)
    if (!listed) {
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${skill.id}" has no file "${rel}".`, {
        data: { path: rel },
      })
    }
    const key = `${skill.version}\n${rel}`
    const kept = this.#bytes.get(key)
    if (kept) return kept
    const bytes = contentBytes(await this.#requests.read(listed.uri, signal))
    if (bytes.byteLength !== listed.size || skillFileDigest(bytes) !== listed.digest)
      this.#refuse(skill, `file "${rel}" is not what the entry lists`)
    if (rel === 'SKILL.md') {
      const { frontmatter } = parseSkillMd(decodeSkillText(bytes))
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(frontmatter)), skill.entry.frontmatter))
        this.#refuse(skill, 'its SKILL.md frontmatter is not the one the entry lists')
    }
    this.#bytes.set(key, bytes)
    return bytes
  }

  /**
   * Fetches and verifies every file of the skill at `ref` that is not kept
   * yet, a few at once, so a load reads them from memory (see
   * `SkillSource.prefetch`): a manager calls this before the load joins the
   * queue local loads share, so a slow server holds up only its own loads.
   */
  async prefetch(ref: SkillRef, options: SourceReadOptions = {}): Promise<void> {
    const skill = this.#current(ref)
    await eachAtMost([...skill.files.keys()], PREFETCH_CONCURRENCY, (path) =>
      this.#file(skill, path, options.signal),
    )
  }

  #refuse(skill: RemoteSkill, why: string): never {
    this.#refused.add(skill.version)
    throw new SkillHostError(
      'E_SKILL_DIGEST_MISMATCH',
      `Skill "${skill.id}" from ${this.id} failed verification: ${why}. It is not served; refresh the skills.`,
      { data: { skill: skill.id, source: this.id } },
    )
  }

  async #body(skill: RemoteSkill, signal?: AbortSignal): Promise<Uint8Array> {
    return encoder.encode(
      parseSkillMd(decodeSkillText(await this.#file(skill, 'SKILL.md', signal))).body,
    )
  }

  async descriptor(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillDescriptor> {
    const skill = this.#current(ref)
    return remoteDescriptor(skill, (path) => this.#file(skill, path, options.signal))
  }

  /**
   * The skill's manifest as the server lists it (every file's path, size and
   * `sha256:` digest, the verbatim frontmatter), with no fetch: its reader
   * fetches a file only when read, verified like any other. No content
   * digest is taken here (that needs every byte); `lockSkills` takes one
   * from the verified bytes.
   */
  async manifest(ref: SkillRef, options: SkillManifestOptions = {}): Promise<SkillFileManifest> {
    const skill = this.#current(ref)
    const files = [...skill.files.values()]
      .map(({ path, size, digest }) => ({ path, size, digest }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const totalBytes = files.reduce((n, f) => n + f.size, 0)
    checkManifestBounds(skill.id, files.length, totalBytes, options.bounds)
    return {
      id: skill.id,
      version: skill.version,
      frontmatter: skill.entry.frontmatter,
      files,
      totalBytes,
      read: (path, readOptions = {}) => this.#file(skill, path, readOptions.signal),
    }
  }

  async read(
    ref: SkillRef,
    path?: string,
    options: SourceReadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const skill = this.#current(ref)
    const bytes =
      path === undefined
        ? await this.#body(skill, options.signal)
        : await this.#file(skill, path, options.signal)
    return bytesToStream(bytes.slice())
  }

  async stat(ref: SkillRef, path?: string): Promise<SkillFileStat> {
    const skill = this.#current(ref)
    if (path === undefined)
      return { size: (await this.#body(skill)).byteLength, version: skill.version }
    const listed = skill.files.get(normalizeSkillPath(path))
    if (!listed)
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${skill.id}" has no file "${path}".`)
    return { size: listed.size, version: skill.version }
  }

  async list(ref: SkillRef): Promise<readonly string[]> {
    return this.#paths(this.#current(ref))
  }

  #paths(skill: RemoteSkill): string[] {
    return [...skill.files.keys()].filter((p) => p !== 'SKILL.md').sort()
  }

  async snapshot(ref: SkillRef): Promise<SkillSnapshot> {
    const skill = this.#current(ref)
    return {
      paths: this.#paths(skill),
      read: (path) => this.#file(skill, path),
      manifest: () => this.#file(skill, 'SKILL.md'),
      size: (path) => (path === 'SKILL.md' ? undefined : skill.files.get(path)?.size),
    }
  }
}
