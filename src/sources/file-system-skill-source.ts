import { CatalogRows } from './discovery/catalog-rows.js'
import { ChangeListeners } from './discovery/change-listeners.js'
import { discoverSkills } from './discovery/discover-skills.js'
import { SharedDiscovery } from './discovery/shared-discovery.js'
import { VisitCache, type WatchState } from './discovery/visit-cache.js'
import { SkillDigests } from './lock/skill-digests.js'
import { type SkillLock, type SkillLockFile, toSkillLock } from './lock/skill-lock.js'
import { SkillPins } from './lock/skill-pins.js'
import {
  type OverlaySidecar,
  readOverlaySidecar,
  resolveOverlayDirs,
} from './overlays/skill-overlays.js'
import { ServedSkills } from './reading/served-skills.js'
import type { SkillFileManifest, SkillManifestOptions } from './reading/skill-manifest.js'
import { type DeclaredSkill, SkillReader } from './reading/skill-reader.js'
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

export type { DeclaredSkill } from './reading/skill-reader.js'

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
   * For a one-shot check that reads no tool (`skillhost validate`): in a skill
   * with no `skillhost.yaml`, stat only the files the loader reads (SKILL.md,
   * agents/openai.yaml), not every file for the version. The version is then
   * blind to changes of the other files, which list as 0 bytes, and reading
   * them fails (`E_SKILL_SOURCE_FAILED`). Ignored with `overlays` or `lock`, whose
   * sidecars and pins name files. Off by default.
   */
  readonly statLoadedOnly?: boolean
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
  /**
   * The number the first root has in copy keys (`DiscoveredSkill.copy`:
   * root number, then folder; default 1). For a caller that splits one
   * deployment's roots over a source per root, as `skillhost list` does, so
   * its copy keys are those one source over all the roots would give.
   */
  readonly firstRootNumber?: number
}

/**
 * Serves agentskills.io folders from disk. `discover` walks the roots (see
 * `walkSkillRoots`), validates each SKILL.md (lenient unless `strict`) and its
 * optional `skillhost.yaml`, and yields skills whose id is the manifest name;
 * a later folder with a taken id is reported, not served. A skill's version is
 * a hash of every file's path, size, mtime, ctime and inode (prefixed by a manifest
 * `version`), so any change makes old refs stale: every other method rescans
 * the folder and fails with `E_SKILL_NOT_FOUND` on a stale ref. Reads never
 * leave the folder and are capped by `limits`. With `overlays`, a deployer's
 * sidecar for a skill id replaces the skill's own; it is part of the version,
 * so changing, adding or removing it makes old refs stale too.
 *
 * A facade over parts with one job each: `SharedDiscovery` (one walk at a
 * time, shared and replayed), `discoverSkills` (one walk: which skills are
 * served), `VisitCache` and `ChangeListeners` (what the walk remembers and
 * watches), `SkillPins` (the lock), `ServedSkills` (is a ref still current)
 * and `SkillReader` (reads from one scan).
 */
export class FileSystemSkillSource implements SkillSource {
  /** The id a source gets without `options.id` (the one `skillhost serve` uses, so refs name it). */
  static readonly defaultId = 'filesystem'
  readonly id: string
  readonly roots: readonly string[]
  /** The overlay directories, absolute, earlier first. */
  readonly overlays: readonly string[]
  readonly limits: SkillSourceLimits
  readonly #pins: SkillPins | undefined
  readonly #cache: VisitCache
  readonly #changes: ChangeListeners
  readonly #discovery: SharedDiscovery
  readonly #reader: SkillReader
  #lifetime = new AbortController()

  constructor(options: FileSystemSkillSourceOptions) {
    this.roots = typeof options.roots === 'string' ? [options.roots] : [...options.roots]
    if (this.roots.length === 0)
      throw new TypeError('FileSystemSkillSource needs at least one root')
    const first = options.firstRootNumber ?? 1
    if (!Number.isSafeInteger(first) || first < 1)
      throw new TypeError('FileSystemSkillSource firstRootNumber must be an integer of at least 1')
    this.id = options.id ?? FileSystemSkillSource.defaultId
    this.overlays = resolveOverlayDirs(options.overlays)
    this.limits = resolveSourceLimits(options.limits)
    const watch = options.watch === true ? {} : options.watch || undefined
    this.#changes = new ChangeListeners(watch?.debounceMs ?? 100)
    this.#cache = new VisitCache(
      watch
        ? {
            watch: {
              maxFolders: watch.maxFolders ?? 100_000,
              onChange: () => this.#changes.changed(),
            },
          }
        : {},
    )
    const digests = new SkillDigests(this.limits.maxFileBytes)
    this.#pins =
      options.lock === undefined ? undefined : new SkillPins(toSkillLock(options.lock), digests)
    const rows = new CatalogRows(options.importModules)
    // An overlay's sidecar or a lock's pins name files: those need every stat.
    const statLoadedOnly =
      options.statLoadedOnly === true && this.overlays.length === 0 && options.lock === undefined
    const served = new ServedSkills({
      limits: this.limits,
      statLoadedOnly,
      overlays: this.overlays,
      cache: this.#cache,
      pins: this.#pins,
      digests,
    })
    const walk = {
      roots: this.roots,
      limits: this.limits,
      statLoadedOnly,
      strict: options.strict === true,
      overlays: this.overlays,
      firstRootNumber: first,
      sync: options.discoveryIo !== 'async',
      cache: this.#cache,
      pins: this.#pins,
      rows,
      served,
    }
    this.#discovery = new SharedDiscovery({
      walk: (onProgress) => discoverSkills({ ...walk, signal: this.#lifetime.signal, onProgress }),
      current: () => this.#cache.clean,
    })
    this.#reader = new SkillReader({
      served,
      rows,
      digests,
      limits: this.limits,
      pins: this.#pins,
      roots: this.roots,
    })
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
  discover(options: DiscoverOptions = {}): AsyncIterable<DiscoveredSkill> {
    return this.#discovery.discover(options)
  }

  /**
   * `discover` at once: the same skills, and the same problems reported in
   * order, with no promise per skill. The array is shared by every caller of
   * one discovery (a manager per session over this source): do not mutate it.
   */
  discoverBatch(options: DiscoverOptions = {}): Promise<readonly DiscoveredSkill[]> {
    return this.#discovery.discoverBatch(options)
  }

  /**
   * Calls `listener` (debounced) after a watched folder changed; the next
   * `discover` re-reads what changed. Only sources made with `watch` ever
   * call it. Returns the unsubscribe function.
   */
  onDidChange(listener: () => void): () => void {
    return this.#changes.add(listener)
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
    this.#changes.close()
    this.#cache.close()
    this.#lifetime.abort()
    this.#lifetime = new AbortController()
  }

  [Symbol.dispose](): void {
    this.close()
  }

  /**
   * The content digest of a skill at `ref` (`sha256-…` over every file's
   * path and bytes; see docs/pinning.md), as a lockfile records it. The
   * folder is rescanned like any read; a stale ref is `E_SKILL_NOT_FOUND`.
   * Cached per scan identity, so an unchanged skill's files are read once.
   * With a lock in force, a skill that is not pinned as is fails
   * `E_SKILL_NOT_PINNED` first.
   */
  digest(ref: SkillRef, options: SourceReadOptions = {}): Promise<string> {
    return this.#reader.digest(ref, options)
  }

  /**
   * Every file of the skill at `ref` with its size and `sha256:` digest
   * (from the lockfile's digest walker, cached per scan identity), its
   * frontmatter and a digest-checked reader; see `SkillSource.manifest`.
   */
  manifest(ref: SkillRef, options: SkillManifestOptions = {}): Promise<SkillFileManifest> {
    return this.#reader.manifest(ref, options)
  }

  descriptor(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillDescriptor> {
    return this.#reader.descriptor(ref, options)
  }

  read(
    ref: SkillRef,
    path?: string,
    options: SourceReadOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    return this.#reader.read(ref, path, options)
  }

  stat(ref: SkillRef, path?: string): Promise<SkillFileStat> {
    return this.#reader.stat(ref, path)
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
    return this.#reader.declared(ref)
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

  async list(ref: SkillRef): Promise<readonly string[]> {
    return (await this.snapshot(ref)).paths
  }

  /**
   * One scan for every file: each read opens with O_NOFOLLOW and checks the
   * file's identity (inode, size, mtime, ctime) against this scan, so a file swapped
   * or changed since is `E_SKILL_SOURCE_FAILED`, never unvalidated bytes.
   */
  snapshot(ref: SkillRef, options: SourceReadOptions = {}): Promise<SkillSnapshot> {
    return this.#reader.snapshot(ref, options)
  }
}
