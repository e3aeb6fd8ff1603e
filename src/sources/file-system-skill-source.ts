import { SkillHostError } from '../common/errors.js'
import type { Tool } from '../common/tool.js'
import { parseSkillMd } from '../manifest/parse-skill-md.js'
import { normalizeSkillPath } from '../skill-model/skill-path.js'
import { unavailableTool } from '../skill-model/unavailable-tool.js'
import { bytesToStream } from './bytes-to-stream.js'
import { runAsync } from './fs-steps.js'
import { importModuleTools } from './import-module-tools.js'
import { type FsSkillEntry, readSkillText } from './load-fs-skill.js'
import { type SkillFolderScan, scanSkillFolder } from './scan-skill-folder.js'
import { asyncSkillFs, syncSkillFs } from './skill-fs.js'
import {
  locateOverlaySteps,
  type OverlayHit,
  resolveOverlayDirs,
  sameOverlay,
} from './skill-overlays.js'
import { resolveSourceLimits, type SkillSourceLimits } from './source-limits.js'
import type {
  DiscoveredSkill,
  DiscoverOptions,
  SkillDescriptor,
  SkillFileStat,
  SkillRef,
  SkillSnapshot,
  SkillSource,
  SourceReadOptions,
} from './types.js'
import { throwIfAborted } from './visit-folder.js'
import { walkSkillRoots } from './walk-skill-roots.js'

/** Options for `FileSystemSkillSource`. */
export interface FileSystemSkillSourceOptions {
  /** Folders holding skill folders (or skill folders themselves). Earlier roots win id collisions. */
  readonly roots: string | readonly string[]
  /** Source id; defaults to `filesystem`. */
  readonly id?: string
  /** Apply the agentskills.io rules strictly: warnings become errors and the skill is skipped. */
  readonly strict?: boolean
  /**
   * Import the `module:` a skill's `skillhost.yaml` declares and serve its
   * exported `Tool`s. Off by default: importing runs the skill's code in this
   * process, which is the deployer's decision. A predicate decides per skill.
   */
  readonly importModules?: boolean | ((skill: DiscoveredSkill) => boolean)
  readonly limits?: Partial<SkillSourceLimits>
  /**
   * Overlay directories: a deployer's sidecars for skills they did not write.
   * The sidecar for skill id `x` is `<dir>/x/skillhost.yaml`; the first
   * directory holding one wins, and it replaces the skill's own sidecar (the
   * catalog entry warns when it does). Paths in it are relative to the
   * skill's folder and pass the same parser and checks as a skill's own.
   */
  readonly overlays?: string | readonly string[]
  /**
   * How discovery touches the disk. `sync` (default) makes direct syscalls in
   * slices of about 10 ms, yielding to the event loop between slices: several
   * times faster for many small files. `async` uses the thread pool and never
   * blocks the loop; prefer it on network filesystems where one call can stall.
   * Reads after discovery are always async.
   */
  readonly discoveryIo?: 'sync' | 'async'
}

const encoder = new TextEncoder()
const encodeText = (text: string): Uint8Array => encoder.encode(text)

function notFound(ref: SkillRef, why: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_FOUND',
    `Skill "${ref.id}" at version "${ref.version}" ${why}; list skills again.`,
    {
      data: { id: ref.id, version: ref.version },
    },
  )
}

function unreadable(ref: SkillRef, cause: unknown): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_FOUND',
    `Skill "${ref.id}" can no longer be read; list skills again.`,
    { cause },
  )
}

/**
 * Serves agentskills.io folders from disk. `discover` walks the roots (see
 * `walkSkillRoots`), validates each SKILL.md (lenient unless `strict`) and its
 * optional `skillhost.yaml`, and yields skills whose id is the manifest name;
 * a later folder with a taken id is reported, not served. A skill's version is
 * a hash of every file's path, size, mtime and inode (prefixed by a manifest
 * `version`), so any change makes old refs stale: every other method rescans
 * the folder and fails with `E_SKILL_NOT_FOUND` on a stale ref. Reads never
 * leave the folder and are capped by `limits`. With `overlays`, a deployer's
 * sidecar for a skill id replaces the skill's own; it is part of the version,
 * so changing, adding or removing it makes old refs stale too.
 */
export class FileSystemSkillSource implements SkillSource {
  readonly id: string
  readonly roots: readonly string[]
  /** The overlay directories, absolute, earlier first. */
  readonly overlays: readonly string[]
  readonly limits: SkillSourceLimits
  readonly #strict: boolean
  readonly #importModules: FileSystemSkillSourceOptions['importModules']
  readonly #syncDiscovery: boolean
  #entries = new Map<string, FsSkillEntry>()

  constructor(options: FileSystemSkillSourceOptions) {
    this.roots = typeof options.roots === 'string' ? [options.roots] : [...options.roots]
    if (this.roots.length === 0)
      throw new TypeError('FileSystemSkillSource needs at least one root')
    this.id = options.id ?? 'filesystem'
    this.overlays = resolveOverlayDirs(options.overlays)
    this.limits = resolveSourceLimits(options.limits)
    this.#strict = options.strict === true
    this.#importModules = options.importModules
    this.#syncDiscovery = options.discoveryIo !== 'async'
  }

  async *discover(options: DiscoverOptions = {}): AsyncIterable<DiscoveredSkill> {
    const report = options.report ?? (() => undefined)
    const found = new Map<string, FsSkillEntry>()
    const where = new Map<string, string>()
    const walk = walkSkillRoots(this.roots, {
      limits: this.limits,
      strict: this.#strict,
      overlays: this.overlays,
      io: this.#syncDiscovery ? { sync: syncSkillFs } : { async: asyncSkillFs },
      report,
      ...(options.signal && { signal: options.signal }),
      ...(options.onProgress && { onProgress: options.onProgress }),
    })
    for await (const batch of walk) {
      for (const { location, hostPath, outcome } of batch) {
        // A batch may outlive an abort; nothing is yielded after one.
        throwIfAborted(options.signal)
        if (!outcome.ok) {
          for (const message of outcome.errors)
            report({ location, hostPath, code: outcome.code, message, severity: 'error' })
          continue
        }
        const { entry } = outcome
        const id = entry.manifest.name
        const first = where.get(id)
        if (first !== undefined) {
          const message = `Skill id "${id}" is already served from ${first}; this copy is shadowed.`
          report({ location, hostPath, id, code: 'E_SKILL_SHADOWED', message, severity: 'warning' })
          continue
        }
        where.set(id, location)
        const skill = this.#toDiscovered(id, entry, hostPath)
        found.set(id, entry)
        this.#entries.set(id, entry)
        if (skill.warnings) {
          for (const message of skill.warnings) {
            report({
              location,
              hostPath,
              id,
              code: 'E_SKILL_MANIFEST_INVALID',
              message,
              severity: 'warning',
            })
          }
        }
        yield skill
      }
    }
    this.#entries = found
  }

  #toDiscovered(id: string, entry: FsSkillEntry, hostPath: string): DiscoveredSkill {
    const m = entry.manifest
    // Built field by field (same key order as before): spreads of
    // conditional objects cost a temporary object each, per skill.
    const base: { -readonly [K in keyof DiscoveredSkill]: DiscoveredSkill[K] } = {
      id,
      version: entry.version,
      name: m.name,
      description: m.description,
    }
    if (m.license !== undefined) base.license = m.license
    if (m.compatibility !== undefined) base.compatibility = m.compatibility
    if (m.metadata !== undefined) base.metadata = m.metadata
    if (m.allowedTools !== undefined) base.allowedTools = m.allowedTools
    // Not an agentskills.io key, so it arrives in `extra` (and strict mode rejects it, as skills-ref does).
    if (m.extra['disable-model-invocation'] === true) base.disableModelInvocation = true
    base.location = `${hostPath}/SKILL.md`
    const skipped = Boolean(entry.sidecar?.module) && !this.#mayImport(base)
    if (entry.warnings.length === 0 && !skipped) return base
    const warnings = [...entry.warnings]
    if (skipped) {
      warnings.push(
        `module tools in ${entry.sidecar?.module} were not imported: importModules is off for this skill`,
      )
    }
    return { ...base, warnings }
  }

  #mayImport(skill: DiscoveredSkill): boolean {
    const allow = this.#importModules
    return allow === true || (typeof allow === 'function' && allow(skill) === true)
  }

  /** The cached entry for a ref and a fresh scan proving it is still current. */
  async #current(
    ref: SkillRef,
    signal?: AbortSignal,
  ): Promise<{ entry: FsSkillEntry; scan: SkillFolderScan }> {
    signal?.throwIfAborted()
    const entry = this.#entries.get(ref.id)
    if (!entry) throw notFound(ref, 'is not served by this source')
    if (entry.version !== ref.version) throw notFound(ref, 'is stale')
    let scan: SkillFolderScan
    try {
      scan = await scanSkillFolder(entry.dir, this.limits)
    } catch (cause) {
      throw unreadable(ref, cause)
    }
    if (scan.hash !== entry.scan.hash) throw notFound(ref, 'changed on disk')
    if (this.overlays.length > 0) {
      let overlay: OverlayHit | undefined
      try {
        overlay = await runAsync(locateOverlaySteps(this.overlays, ref.id), asyncSkillFs)
      } catch (cause) {
        throw unreadable(ref, cause)
      }
      if (!sameOverlay(overlay, entry.overlay)) throw notFound(ref, 'changed on disk')
    }
    return { entry, scan }
  }

  async #body(scan: SkillFolderScan): Promise<Uint8Array> {
    const text = await readSkillText(scan, 'SKILL.md', this.limits.maxSkillMdBytes)
    return encodeText(
      parseSkillMd(text, { maxFrontmatterBytes: this.limits.maxFrontmatterBytes }).body,
    )
  }

  async descriptor(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillDescriptor> {
    const { entry, scan } = await this.#current(ref, options.signal)
    const m = entry.manifest
    const sidecar = entry.sidecar
    const isolatedTools = []
    for (const t of sidecar?.isolatedTools ?? []) {
      const source = (await readSkillText(scan, t.source, this.limits.maxFileBytes)).trim()
      isolatedTools.push({
        name: t.name,
        description: t.description,
        ...(t.params && { params: t.params }),
        source,
      })
    }
    let tools: Tool[] | undefined
    const discovered = this.#toDiscovered(ref.id, entry, entry.dir)
    const imported = sidecar?.module !== undefined && this.#mayImport(discovered)
    if (sidecar?.module && imported) {
      tools = await importModuleTools(
        scan.files.get(sidecar.module)!.abs,
        entry.version,
        sidecar.module,
      )
    }
    // The module's tool names are known only once imported: it is named by its path.
    const unavailableTools =
      sidecar?.module && !imported
        ? [unavailableTool(`module:${sidecar.module}`, 'module-imports-off')]
        : []
    options.signal?.throwIfAborted()
    return {
      id: ref.id,
      version: entry.version,
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
    }
  }

  async read(
    ref: SkillRef,
    path?: string,
    options: SourceReadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const rel = path === undefined ? undefined : normalizeSkillPath(path)
    const { scan } = await this.#current(ref, options.signal)
    if (rel === undefined) return bytesToStream(await this.#body(scan))
    const file = scan.files.get(rel)
    if (!file)
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${ref.id}" has no file "${rel}".`, {
        data: { path: rel },
      })
    return bytesToStream(
      (await asyncSkillFs.readCapped(file.abs, this.limits.maxFileBytes, rel, file)).bytes,
    )
  }

  async stat(ref: SkillRef, path?: string): Promise<SkillFileStat> {
    const rel = path === undefined ? undefined : normalizeSkillPath(path)
    const { entry, scan } = await this.#current(ref)
    if (rel === undefined)
      return { size: (await this.#body(scan)).byteLength, version: entry.version }
    const file = scan.files.get(rel)
    if (!file)
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${ref.id}" has no file "${rel}".`, {
        data: { path: rel },
      })
    return { size: file.size, version: entry.version }
  }

  async list(ref: SkillRef): Promise<readonly string[]> {
    return (await this.snapshot(ref)).paths
  }

  /**
   * One scan for every file: each read opens with O_NOFOLLOW and checks the
   * file's identity (inode, size, mtime) against this scan, so a file swapped
   * or changed since is `E_SKILL_SOURCE_FAILED`, never unvalidated bytes.
   */
  async snapshot(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillSnapshot> {
    const { scan } = await this.#current(ref, options.signal)
    const paths = [...scan.files.keys()].filter((p) => p !== 'SKILL.md').sort()
    const max = this.limits.maxFileBytes
    return {
      paths,
      async read(path) {
        const rel = normalizeSkillPath(path)
        const file = rel === 'SKILL.md' ? undefined : scan.files.get(rel)
        if (!file)
          throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${ref.id}" has no file "${rel}".`, {
            data: { path: rel },
          })
        return (await asyncSkillFs.readCapped(file.abs, max, rel, file)).bytes
      },
      size: (path) => (path === 'SKILL.md' ? undefined : scan.files.get(path)?.size),
    }
  }
}
