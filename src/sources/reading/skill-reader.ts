import { SkillHostError } from '../../common/errors.js'
import type { Tool } from '../../common/tool.js'
import type { IgnoredKey } from '../../manifest/claude-code-keys.js'
import { parseSkillMd } from '../../manifest/parse-skill-md.js'
import type { SkillPermissionRequest } from '../../skill-model/permission-request.js'
import { normalizeSkillPath } from '../../skill-model/skill-path.js'
import type { UnavailableTool } from '../../skill-model/unavailable-tool.js'
import type { CatalogRows } from '../discovery/catalog-rows.js'
import { readScanned, scannedFilePath } from '../discovery/scan-skill-folder.js'
import type { SkillDigests } from '../lock/skill-digests.js'
import type { SkillPins } from '../lock/skill-pins.js'
import type { SkillSourceLimits } from '../source-limits.js'
import type {
  PluginFiles,
  SkillDescriptor,
  SkillFileStat,
  SkillRef,
  SkillScriptDeclaration,
  SkillSnapshot,
  SourceReadOptions,
} from '../types.js'
import { bytesToStream } from './bytes-to-stream.js'
import { importModuleTools } from './import-module-tools.js'
import type { CurrentSkill, ServedSkills } from './served-skills.js'
import {
  checkManifestBounds,
  type SkillFileManifest,
  type SkillManifestOptions,
  skillFileDigestOfBase64,
  verifiedReader,
} from './skill-manifest.js'
import { findSkillPlugin, pinnedPluginFiles, scanSkillPlugin } from './skill-plugin.js'

/** What discovery saw of a skill: see `FileSystemSkillSource.declared`. */
export interface DeclaredSkill {
  /** Every shipped file but SKILL.md, as sorted normalized relative paths. */
  readonly files: readonly string[]
  /** Scripts the sidecar declares (validated like any declaration; a load checks them again). */
  readonly scripts: readonly SkillScriptDeclaration[]
  /** Names of the isolated tools the sidecar declares. */
  readonly isolatedTools: readonly string[]
  /** Tools declared that this source will not serve (a module it does not import), as `descriptor` reports them. */
  readonly unavailableTools: readonly UnavailableTool[]
  /** What its scripts ask for (the sidecar's `permissions`, else `agents/openai.yaml`'s), as `descriptor` reports it. */
  readonly permissions?: SkillPermissionRequest
  /** Claude Code keys its manifest has that skillhost does not honour, as `descriptor` reports them. */
  readonly ignored: readonly IgnoredKey[]
}

/** Options for `SkillReader`. */
export interface SkillReaderOptions {
  readonly served: ServedSkills
  readonly rows: CatalogRows
  readonly digests: SkillDigests
  readonly limits: SkillSourceLimits
  /** The lockfile in force, if any: a locked skill's module graph is held to its pinned files. */
  readonly pins: SkillPins | undefined
  /** The source's roots: a skill's plugin is looked for up to the root holding it, never above. */
  readonly roots: readonly string[]
}

const encoder = new TextEncoder()
const encodeText = (text: string): Uint8Array => encoder.encode(text)

function noSuchFile(ref: SkillRef, rel: string): SkillHostError {
  return new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${ref.id}" has no file "${rel}".`, {
    data: { path: rel },
  })
}

/**
 * Reads a served skill. Every read but `declared` first proves the ref
 * current (`ServedSkills.current`: a fresh scan, the overlay, the lock) and
 * then reads only files of that scan, each checked against the scan's
 * identity and capped by `limits`. See the methods of
 * `FileSystemSkillSource`, which this serves.
 */
export class SkillReader {
  readonly #served: ServedSkills
  readonly #rows: CatalogRows
  readonly #digests: SkillDigests
  readonly #limits: SkillSourceLimits
  readonly #pins: SkillPins | undefined
  readonly #roots: readonly string[]

  constructor(options: SkillReaderOptions) {
    this.#roots = options.roots
    this.#served = options.served
    this.#rows = options.rows
    this.#digests = options.digests
    this.#limits = options.limits
    this.#pins = options.pins
  }

  /** The content digest of the skill at `ref`, cached per scan identity. */
  async digest(ref: SkillRef, options: SourceReadOptions = {}): Promise<string> {
    const { entry, scan } = await this.#served.current(ref, options.signal)
    return this.#digests.digest(entry.dir, scan)
  }

  /**
   * Every file of the skill with its size and per-file digest, from one
   * fresh scan: the digests come from the lockfile's digest walker (each file
   * read once through a descriptor checked against the scan, cached per scan
   * identity), so an unchanged skill is hashed once. Bounds are checked on the
   * scan's sizes before anything is read.
   */
  async manifest(ref: SkillRef, options: SkillManifestOptions = {}): Promise<SkillFileManifest> {
    const current = await this.#served.current(ref, options.signal)
    const { entry, scan } = current
    let totalBytes = 0
    for (const file of scan.files.values()) totalBytes += file.size
    checkManifestBounds(ref.id, scan.files.size, totalBytes, options.bounds)
    const { digest: contentDigest, files: sha256 } = await this.#digests.fileDigests(
      entry.dir,
      scan,
    )
    const text = await this.#served.readText(current, 'SKILL.md', this.#limits.maxSkillMdBytes)
    const { frontmatter } = parseSkillMd(text, {
      maxFrontmatterBytes: this.#limits.maxFrontmatterBytes,
    })
    const files = [...scan.files.keys()].sort().map((path) => ({
      path,
      size: scan.files.get(path)!.size,
      digest: skillFileDigestOfBase64(sha256.get(path)!),
    }))
    const max = this.#limits.maxFileBytes
    const read = verifiedReader(ref.id, files, async (path) => {
      const file = scan.files.get(path)!
      return readScanned(scan, path, file, max)
    })
    return {
      id: ref.id,
      version: entry.version,
      // A JSON value, as the extension carries it (YAML scalars are JSON-safe; this drops nothing else).
      frontmatter: JSON.parse(JSON.stringify(frontmatter)) as Record<string, unknown>,
      files,
      totalBytes,
      contentDigest,
      read,
    }
  }

  /** The skill's descriptor: its manifest, isolated tool sources, imported module tools, scripts. */
  async descriptor(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillDescriptor> {
    const current = await this.#served.current(ref, options.signal)
    const { entry, scan } = current
    const m = entry.manifest
    const sidecar = entry.sidecar
    const isolatedTools = []
    for (const t of sidecar?.isolatedTools ?? []) {
      const source = (
        await this.#served.readText(current, t.source, this.#limits.maxFileBytes)
      ).trim()
      isolatedTools.push({
        name: t.name,
        description: t.description,
        ...(t.params && { params: t.params }),
        source,
      })
    }
    let tools: Tool[] | undefined
    const unavailableTools = this.#rows.notImported(ref.id, entry)
    if (sidecar?.module && unavailableTools.length === 0) {
      // Locked: each file's hash, from the same reads as a digest equal to the lock's.
      const pinned = await this.#pins?.pinnedFiles(ref.id, entry.dir, scan)
      tools = await importModuleTools(
        scannedFilePath(scan, sidecar.module, scan.files.get(sidecar.module)!),
        entry.version,
        sidecar.module,
        pinned && { id: ref.id, dir: entry.dir, scan, ...pinned },
      )
    }
    const place = await findSkillPlugin(entry.dir, this.#roots)
    options.signal?.throwIfAborted()
    return {
      ...(place && { plugin: { skillPath: place.skillPath } }),
      id: ref.id,
      version: entry.version,
      ...(ref.copy !== undefined && { copy: ref.copy }),
      name: m.name,
      description: m.description,
      ...(m.license !== undefined && { license: m.license }),
      ...(m.compatibility !== undefined && { compatibility: m.compatibility }),
      ...(m.metadata !== undefined && { metadata: m.metadata }),
      ...(m.allowedTools !== undefined && { allowedTools: m.allowedTools }),
      ...(tools && { tools }),
      ...(isolatedTools.length > 0 && { isolatedTools }),
      ...(sidecar && sidecar.scripts.length > 0 && { scripts: sidecar.scripts }),
      ...(unavailableTools.length > 0 && { unavailableTools }),
      ...(m.ignored.length > 0 && { ignored: m.ignored }),
      ...(entry.permissions && { permissions: entry.permissions }),
    }
  }

  /** One file's bytes, or with no `path` the body (SKILL.md without frontmatter). */
  async read(
    ref: SkillRef,
    path?: string,
    options: SourceReadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const rel = path === undefined ? undefined : normalizeSkillPath(path)
    const current = await this.#served.current(ref, options.signal)
    if (rel === undefined) return bytesToStream(await this.#body(current))
    if (!current.scan.files.has(rel)) throw noSuchFile(ref, rel)
    return bytesToStream(await this.#served.read(current, rel, this.#limits.maxFileBytes))
  }

  /** One file's size (the body's, with no `path`) and the skill's version. */
  async stat(ref: SkillRef, path?: string): Promise<SkillFileStat> {
    const rel = path === undefined ? undefined : normalizeSkillPath(path)
    const current = await this.#served.current(ref)
    const { entry, scan } = current
    if (rel === undefined)
      return { size: (await this.#body(current)).byteLength, version: entry.version }
    const file = scan.files.get(rel)
    if (!file) throw noSuchFile(ref, rel)
    return { size: file.size, version: entry.version }
  }

  /** What the last discovery saw of the skill at `ref`'s version, from memory; undefined if not served. */
  declared(ref: SkillRef): DeclaredSkill | undefined {
    const entry = this.#served.entry(ref)
    if (!entry) return undefined
    const sidecar = entry.sidecar
    return {
      files: [...entry.scan.files.keys()].filter((p) => p !== 'SKILL.md').sort(),
      scripts: sidecar?.scripts ?? [],
      isolatedTools: (sidecar?.isolatedTools ?? []).map((t) => t.name),
      unavailableTools: this.#rows.notImported(ref.id, entry),
      ...(entry.permissions && { permissions: entry.permissions }),
      ignored: entry.manifest.ignored,
    }
  }

  /** One scan for every file; each read is checked against it (see `FileSystemSkillSource.snapshot`). */
  async snapshot(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillSnapshot> {
    const current = await this.#served.current(ref, options.signal)
    const { scan } = current
    const paths = [...scan.files.keys()].filter((p) => p !== 'SKILL.md').sort()
    const max = this.#limits.maxFileBytes
    const maxManifest = this.#limits.maxSkillMdBytes
    const served = this.#served
    return {
      plugin: () => this.#plugin(ref, current),
      paths,
      manifest: () => served.read(current, 'SKILL.md', maxManifest),
      async read(path) {
        const rel = normalizeSkillPath(path)
        if (rel === 'SKILL.md' || !scan.files.has(rel)) throw noSuchFile(ref, rel)
        return served.read(current, rel, max)
      },
      size: (path) => (path === 'SKILL.md' ? undefined : scan.files.get(path)?.size),
    }
  }

  /** The skill's plugin files, if it sits in a plugin; under a lock, held to the entry's plugin digest. */
  async #plugin(ref: SkillRef, current: CurrentSkill): Promise<PluginFiles | undefined> {
    const place = await findSkillPlugin(current.entry.dir, this.#roots)
    const found =
      place === undefined ? undefined : (await scanSkillPlugin(place, this.#limits)).files
    if (this.#pins === undefined) return found
    return pinnedPluginFiles(ref.id, found, this.#pins.lock.skills.get(ref.id)?.plugin?.digest)
  }

  async #body(current: CurrentSkill): Promise<Uint8Array> {
    const text = await this.#served.readText(current, 'SKILL.md', this.#limits.maxSkillMdBytes)
    return encodeText(
      // Discovery already judged the file; one without frontmatter is all body.
      parseSkillMd(text, {
        maxFrontmatterBytes: this.#limits.maxFrontmatterBytes,
        allowMissing: true,
      }).body,
    )
  }
}
