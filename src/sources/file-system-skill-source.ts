import { SkillHostError } from '../common/errors.js'
import type { Tool } from '../common/tool.js'
import { parseSkillMd } from '../manifest/parse-skill-md.js'
import { normalizeSkillPath } from '../skill-model/skill-path.js'
import { type UnavailableTool, unavailableTool } from '../skill-model/unavailable-tool.js'
import { bytesToStream } from './bytes-to-stream.js'
import { runAsync, runSync } from './fs-steps.js'
import { importModuleTools } from './import-module-tools.js'
import { type FsSkillEntry, readSkillText } from './load-fs-skill.js'
import { type SkillFolderScan, scanSkillFolder } from './scan-skill-folder.js'
import { type DigestRunner, SkillDigests } from './skill-digests.js'
import { asyncSkillFs, syncSkillFs } from './skill-fs.js'
import { type SkillLock, type SkillLockFile, toSkillLock } from './skill-lock.js'
import {
  locateOverlaySteps,
  type OverlayHit,
  type OverlaySidecar,
  readOverlaySidecar,
  resolveOverlayDirs,
  sameOverlay,
} from './skill-overlays.js'
import { SkillPins } from './skill-pins.js'
import { resolveSourceLimits, type SkillSourceLimits } from './source-limits.js'
import type {
  DiscoveredSkill,
  DiscoverOptions,
  DiscoveryProgress,
  SkillDescriptor,
  SkillFileStat,
  SkillProblem,
  SkillRef,
  SkillScriptDeclaration,
  SkillSnapshot,
  SkillSource,
  SourceReadOptions,
} from './types.js'
import { VisitCache, type WatchState } from './visit-cache.js'
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
  /**
   * Watch every folder discovery reads (one OS watch per folder, inotify on
   * Linux) and tell `onDidChange` listeners when one changes. While nothing
   * changed, `discover` answers from memory without touching the disk, which
   * is what lets many managers (one per conversation) share one source
   * cheaply. Folders that cannot be watched (the limit, or the OS's) are
   * looked at again on every discovery instead; `watchState()` says how many.
   * Off by default. `maxFolders` defaults to 100,000; `debounceMs` (how long
   * changes are gathered before listeners hear of them) to 100.
   */
  readonly watch?: boolean | { readonly maxFolders?: number; readonly debounceMs?: number }
  /**
   * A lockfile (`readSkillLock`, `parseSkillLock`, or its JSON value): only
   * pinned skills are served. A skill not in it is reported
   * (`E_SKILL_NOT_PINNED`, an error) and not served; one whose content no
   * longer matches its digest is listed with `pin.state`
   * `changed-since-pinned` and refuses to load (`E_SKILL_NOT_PINNED`) until
   * pinned again. Every load checks the content against the lock anew. An
   * invalid value is `E_INVALID_SKILLS_CONFIG`. See docs/pinning.md.
   */
  readonly lock?: SkillLock | SkillLockFile
}

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
}

/** One discovery, in the order the walk produced it: skills and the problems reported among them. */
type DiscoveryEvent =
  | { readonly skill: DiscoveredSkill; readonly problem?: undefined }
  | { readonly skill?: undefined; readonly problem: SkillProblem }

/** A complete discovery, kept so later callers can replay it. */
interface Discovery {
  readonly events: readonly DiscoveryEvent[]
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

/** `promise`, or `E_ABORTED` as soon as `signal` aborts (the work itself goes on for other callers). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      try {
        throwIfAborted(signal)
      } catch (err) {
        reject(err)
      }
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
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
  readonly #digests: SkillDigests
  readonly #pins: SkillPins | undefined
  #entries = new Map<string, FsSkillEntry>()
  readonly #cache: VisitCache
  readonly #rows = new WeakMap<FsSkillEntry, DiscoveredSkill>()
  readonly #listeners = new Set<() => void>()
  /** The progress listeners of the callers waiting on the walk. */
  readonly #progress = new Set<(progress: DiscoveryProgress) => void>()
  readonly #debounceMs: number
  #debounce: ReturnType<typeof setTimeout> | undefined
  #lifetime = new AbortController()
  #last: Discovery | undefined
  /** Each discovery's skills as one array, shared by `discoverBatch` callers. */
  readonly #batches = new WeakMap<Discovery, readonly DiscoveredSkill[]>()
  #walking: Promise<Discovery> | undefined
  #queued: Promise<Discovery> | undefined

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
    const watch = options.watch === true ? {} : options.watch || undefined
    this.#debounceMs = watch?.debounceMs ?? 100
    this.#cache = new VisitCache(
      watch
        ? {
            watch: {
              maxFolders: watch.maxFolders ?? 100_000,
              onChange: () => this.#changed(),
            },
          }
        : {},
    )
    this.#digests = new SkillDigests(this.limits.maxFileBytes)
    this.#pins =
      options.lock === undefined
        ? undefined
        : new SkillPins(toSkillLock(options.lock), this.#digests)
  }

  /** The lockfile in force (see `FileSystemSkillSource({ lock })`), if any. */
  get lock(): SkillLock | undefined {
    return this.#pins?.lock
  }

  /**
   * Every skill the roots hold, with problems reported among them in walk
   * order. One walk at a time runs per source, and callers share it: a caller
   * arriving while a walk runs waits for the next one, which starts only
   * after it (so it sees changes made before the call) and serves everyone
   * who arrived meanwhile. Each walk re-reads only what changed (see
   * `VisitCache`); with `watch` and nothing changed since the last walk, the
   * last result is replayed without a filesystem call.
   */
  async *discover(options: DiscoverOptions = {}): AsyncIterable<DiscoveredSkill> {
    const report = options.report ?? (() => undefined)
    const { events } = await this.#wait(options)
    for (const event of events) {
      // Nothing is yielded or reported after an abort.
      throwIfAborted(options.signal)
      if (event.skill) yield event.skill
      else report(event.problem)
    }
  }

  /**
   * `discover` at once: the same skills, and the same problems reported in
   * order, with no promise per skill. The array is shared by every caller of
   * one discovery (a manager per session over this source): do not mutate it.
   */
  async discoverBatch(options: DiscoverOptions = {}): Promise<readonly DiscoveredSkill[]> {
    const discovery = await this.#wait(options)
    let skills = this.#batches.get(discovery)
    if (skills === undefined) {
      skills = discovery.events.flatMap((e) => (e.skill ? [e.skill] : []))
      this.#batches.set(discovery, skills)
    }
    if (options.report) for (const e of discovery.events) if (!e.skill) options.report(e.problem)
    throwIfAborted(options.signal)
    return skills
  }

  /** The current discovery for one caller: its abort signal honoured, its progress told. */
  async #wait(options: DiscoverOptions): Promise<Discovery> {
    throwIfAborted(options.signal)
    // Every caller waiting on a walk hears its progress; a replay has none to tell.
    const onProgress = options.onProgress
    if (onProgress) this.#progress.add(onProgress)
    try {
      return await abortable(this.#discovery(), options.signal)
    } finally {
      if (onProgress) this.#progress.delete(onProgress)
    }
  }

  /** The current discovery: the last one when it is known current, else the next walk. */
  #discovery(): Promise<Discovery> {
    if (this.#last && this.#cache.clean && !this.#walking) return Promise.resolve(this.#last)
    if (!this.#walking) return this.#startWalk()
    this.#queued ??= this.#walking
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined
        return this.#last && this.#cache.clean ? this.#last : this.#startWalk()
      })
    return this.#queued
  }

  #startWalk(): Promise<Discovery> {
    const walking = this.#walk().finally(() => {
      if (this.#walking === walking) this.#walking = undefined
    })
    this.#walking = walking
    return walking
  }

  async #walk(): Promise<Discovery> {
    const pass = this.#cache.begin()
    const events: DiscoveryEvent[] = []
    const report = (problem: SkillProblem): void => void events.push({ problem })
    const found = new Map<string, FsSkillEntry>()
    const where = new Map<string, string>()
    const pins = this.#pins
    // With a lock, discovery's SKILL.md bytes go to the digest: no file is read twice.
    const skillMds = pins ? new Map<string, Uint8Array>() : undefined
    const run: DigestRunner | undefined = this.#syncDiscovery
      ? (steps) => runSync(steps, syncSkillFs)
      : undefined
    const walk = walkSkillRoots(this.roots, {
      limits: this.limits,
      strict: this.#strict,
      overlays: this.overlays,
      io: this.#syncDiscovery ? { sync: syncSkillFs } : { async: asyncSkillFs },
      report,
      signal: this.#lifetime.signal,
      visit: (folder, depth, options) => this.#cache.visit(folder, depth, options),
      visited: (folder, depth, visit) => this.#cache.remember(folder, depth, visit),
      ...(skillMds && { onSkillMd: (dir: string, bytes: Uint8Array) => skillMds.set(dir, bytes) }),
      onProgress: (progress) => {
        for (const listener of this.#progress) listener(progress)
      },
    })
    for await (const batch of walk) {
      for (const { location, hostPath, outcome } of batch) {
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
        const skillMd = skillMds?.get(entry.dir)
        const pin = await pins?.admit(
          id,
          entry.dir,
          entry.scan,
          { location, hostPath },
          report,
          run,
          skillMd && new Map([['SKILL.md', skillMd]]),
        )
        if (pins && !pin) continue
        const skill = this.#discovered(id, entry, hostPath)
        found.set(id, entry)
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
        events.push({ skill: pin ? { ...skill, pin } : skill })
      }
      // A batch's skills are admitted: their SKILL.md bytes are not kept past it.
      skillMds?.clear()
    }
    this.#entries = found
    this.#cache.complete(pass)
    // Without a lock or digest() calls there is nothing to prune: no cost per discovery.
    if (this.#digests.size > 0)
      this.#digests.keepOnly(new Set([...found.values()].map((e) => e.dir)))
    const discovery = { events }
    this.#last = discovery
    return discovery
  }

  /** The catalog row of an entry; the same object for the same entry, so a replay allocates nothing. */
  #discovered(id: string, entry: FsSkillEntry, hostPath: string): DiscoveredSkill {
    let skill = this.#rows.get(entry)
    if (skill === undefined || skill.id !== id || skill.location !== `${hostPath}/SKILL.md`) {
      skill = this.#toDiscovered(id, entry, hostPath)
      this.#rows.set(entry, skill)
    }
    return skill
  }

  /**
   * Calls `listener` (debounced) after a watched folder changed; the next
   * `discover` re-reads what changed. Only sources made with `watch` ever
   * call it. Returns the unsubscribe function.
   */
  onDidChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  /** How many folders are watched and, when some are not, why (undefined without `watch`). */
  watchState(): WatchState | undefined {
    return this.#cache.watchState()
  }

  /**
   * Stops watching and abandons a walk in progress (its callers get
   * `E_ABORTED`). The source keeps serving, re-reading on each discovery.
   * Idempotent.
   */
  close(): void {
    if (this.#debounce) clearTimeout(this.#debounce)
    this.#listeners.clear()
    this.#cache.close()
    this.#lifetime.abort()
    this.#lifetime = new AbortController()
  }

  [Symbol.dispose](): void {
    this.close()
  }

  #changed(): void {
    if (this.#debounce || this.#listeners.size === 0) return
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined
      for (const listener of [...this.#listeners]) {
        try {
          listener()
        } catch {
          // A listener's failure is its own; the others still hear of the change.
        }
      }
    }, this.#debounceMs)
    this.#debounce.unref?.()
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
    if (scan.hash !== entry.scan.hash) {
      // A change no watch reported (or none is kept): the next walk reads the folder again.
      this.#cache.invalidate(entry.dir)
      // Changed since discovery: with a lock, say so when it is no longer the pinned content.
      await this.#pins?.verify(ref.id, entry.dir, scan).catch((err: unknown) => {
        if (SkillHostError.is(err, 'E_SKILL_NOT_PINNED')) throw err
      })
      throw notFound(ref, 'changed on disk')
    }
    if (this.overlays.length > 0) {
      let overlay: OverlayHit | undefined
      try {
        overlay = await runAsync(locateOverlaySteps(this.overlays, ref.id), asyncSkillFs)
      } catch (cause) {
        throw unreadable(ref, cause)
      }
      if (!sameOverlay(overlay, entry.overlay)) throw notFound(ref, 'changed on disk')
    }
    // The digest of this very scan (cached only for its identity), never discovery's word for it.
    await this.#pins?.verify(ref.id, entry.dir, scan)
    return { entry, scan }
  }

  /**
   * The content digest of a skill at `ref` (`sha256-…` over every file's
   * path and bytes; see docs/pinning.md), as a lockfile records it. The
   * folder is rescanned like any read; a stale ref is `E_SKILL_NOT_FOUND`.
   * Cached per scan identity, so an unchanged skill's files are read once.
   * With a lock in force, a skill that is not pinned as is fails
   * `E_SKILL_NOT_PINNED` first.
   */
  async digest(ref: SkillRef, options: SourceReadOptions = {}): Promise<string> {
    const { entry, scan } = await this.#current(ref, options.signal)
    return this.#digests.digest(entry.dir, scan)
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
    const unavailableTools = this.#notImported(ref.id, entry)
    if (sidecar?.module && unavailableTools.length === 0) {
      tools = await importModuleTools(
        scan.files.get(sidecar.module)!.abs,
        entry.version,
        sidecar.module,
      )
    }
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

  /**
   * What the last discovery saw of the skill at `ref`'s version, from memory,
   * with no filesystem call: its files and the tools its sidecar (or the
   * deployer's overlay) declares. For listings over many skills (`skillhost
   * list`), which must not rescan each one; anything that uses a skill
   * (`descriptor`, `read`, `snapshot`) still rescans and checks it.
   * Undefined for a ref this source does not serve at that version.
   */
  declared(ref: SkillRef): DeclaredSkill | undefined {
    const entry = this.#entries.get(ref.id)
    if (!entry || entry.version !== ref.version) return undefined
    const sidecar = entry.sidecar
    return {
      files: [...entry.scan.files.keys()].filter((p) => p !== 'SKILL.md').sort(),
      scripts: sidecar?.scripts ?? [],
      isolatedTools: (sidecar?.isolatedTools ?? []).map((t) => t.name),
      unavailableTools: this.#notImported(ref.id, entry),
    }
  }

  /**
   * The overlay sidecar a source with these `overlays` applies to a skill
   * `id`, found as discovery finds it, read within `maxSkillMdBytes` and
   * parsed, with no skill needed: a deployer checks an overlay before its
   * skill arrives (`skillhost validate --overlays`). Undefined when no
   * overlay directory has one; a sidecar that cannot be read or parsed
   * throws its `SkillHostError` with `data.folder`, the overlay folder's
   * host path.
   */
  static overlaySidecar(
    overlays: string | readonly string[],
    id: string,
    limits?: Partial<SkillSourceLimits>,
  ): Promise<OverlaySidecar | undefined> {
    const max = resolveSourceLimits(limits).maxSkillMdBytes
    return readOverlaySidecar(resolveOverlayDirs(overlays), id, max)
  }

  /** The module a skill declares that this source will not import (`importModules`), named by its path. */
  #notImported(id: string, entry: FsSkillEntry): UnavailableTool[] {
    const module = entry.sidecar?.module
    if (module === undefined || this.#mayImport(this.#discovered(id, entry, entry.dir))) return []
    // The module's tool names are known only once imported: it is named by its path.
    return [unavailableTool(`module:${module}`, 'module-imports-off')]
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
