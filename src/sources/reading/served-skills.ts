import { SkillHostError } from '../../common/errors.js'
import { decodeSkillText } from '../../manifest/decode-skill-text.js'
import { runAsync } from '../discovery/fs-steps.js'
import type { FsSkillEntry } from '../discovery/load-fs-skill.js'
import {
  readScanned,
  type SkillFolderScan,
  scanSkillFolder,
} from '../discovery/scan-skill-folder.js'
import { asyncSkillFs } from '../discovery/skill-fs.js'
import type { VisitCache } from '../discovery/visit-cache.js'
import { fileSha256 } from '../lock/skill-digest.js'
import type { SkillDigests } from '../lock/skill-digests.js'
import type { SkillPins } from '../lock/skill-pins.js'
import { locateOverlaySteps, type OverlayHit, sameOverlay } from '../overlays/skill-overlays.js'
import type { SkillSourceLimits } from '../source-limits.js'
import type { SkillRef } from '../types.js'

/** A served skill's entry from discovery and a fresh scan proving it is still current. */
export interface CurrentSkill {
  readonly entry: FsSkillEntry
  readonly scan: SkillFolderScan
  /**
   * Under a lock, each file's pinned SHA-256 (base64, by scan path): the
   * hashes from the reads of a digest equal to the lock's. Every read of the
   * skill is held to them (`ServedSkills.read`).
   */
  readonly pinned?: ReadonlyMap<string, string>
}

/** Options for `ServedSkills`. */
export interface ServedSkillsOptions {
  readonly limits: SkillSourceLimits
  /** The walk's `statLoadedOnly`: a rescan stats as the walk did, so an unchanged skill keeps its hash. */
  readonly statLoadedOnly?: boolean
  /** The overlay directories, absolute, earlier first (see `resolveOverlayDirs`). */
  readonly overlays: readonly string[]
  /** Told of a folder that changed without a watch saying so, so the next walk reads it again. */
  readonly cache: Pick<VisitCache, 'invalidate'>
  /** The lockfile in force, if any: every `current` checks the content against it. */
  readonly pins: SkillPins | undefined
  /** The source's digests, pruned to the served folders on each `serve`. */
  readonly digests: SkillDigests
}

function notFound(ref: Pick<SkillRef, 'id' | 'version'>, why: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_FOUND',
    `Skill "${ref.id}" at version "${ref.version}" ${why}; list skills again.`,
    {
      data: { id: ref.id, version: ref.version },
    },
  )
}

function notPinnedBytes(id: string, rel: string): SkillHostError {
  return new SkillHostError(
    'E_SKILL_NOT_PINNED',
    `Skill "${id}" holds a file whose bytes changed since it was pinned; it will not load until the deployer reviews the change and pins it again with skillhost lock.`,
    { data: { id, reason: 'changed', path: rel } },
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
 * The skills the last discovery served, by id, and the one check every use
 * of a ref passes (`current`): the ref names a served version, a fresh scan
 * of its folder still has that version, its overlay is the one discovery
 * read, and, with a lock, its content is what the lock pins. Anything else
 * is `E_SKILL_NOT_FOUND` (stale: list skills again) or `E_SKILL_NOT_PINNED`.
 */
export class ServedSkills {
  readonly #limits: SkillSourceLimits
  readonly #statLoadedOnly: boolean
  readonly #overlays: readonly string[]
  readonly #cache: Pick<VisitCache, 'invalidate'>
  readonly #pins: SkillPins | undefined
  readonly #digests: SkillDigests
  #entries = new Map<string, FsSkillEntry>()
  #copies = new Map<string, FsSkillEntry>()

  constructor(options: ServedSkillsOptions) {
    this.#limits = options.limits
    this.#statLoadedOnly = options.statLoadedOnly === true
    this.#overlays = options.overlays
    this.#cache = options.cache
    this.#pins = options.pins
    this.#digests = options.digests
  }

  /**
   * Replaces what is served with a completed discovery's skills: the winner
   * of each id (`found`), and every copy by its copy key (`copies`, winners
   * included).
   */
  serve(found: Map<string, FsSkillEntry>, copies: Map<string, FsSkillEntry> = new Map()): void {
    this.#entries = found
    this.#copies = copies
    // Without a lock or digest() calls there is nothing to prune: no cost per discovery.
    if (this.#digests.size > 0)
      this.#digests.keepOnly(new Set([...found.values(), ...copies.values()].map((e) => e.dir)))
  }

  /** The entry a ref names (its copy, or the id's winner), whatever its version. */
  #named(ref: SkillRef): FsSkillEntry | undefined {
    const entry = ref.copy === undefined ? this.#entries.get(ref.id) : this.#copies.get(ref.copy)
    return entry?.manifest.name === ref.id ? entry : undefined
  }

  /** The entry served for `ref` at its version, from memory (no filesystem call); undefined otherwise. */
  entry(ref: SkillRef): FsSkillEntry | undefined {
    const entry = this.#named(ref)
    return entry && entry.version === ref.version ? entry : undefined
  }

  /** The cached entry for a ref and a fresh scan proving it is still current. */
  async current(ref: SkillRef, signal?: AbortSignal): Promise<CurrentSkill> {
    signal?.throwIfAborted()
    const entry = this.#named(ref)
    if (!entry) throw notFound(ref, 'is not served by this source')
    if (entry.version !== ref.version) throw notFound(ref, 'is stale')
    let scan: SkillFolderScan
    try {
      scan = await scanSkillFolder(entry.dir, this.#limits, this.#statLoadedOnly)
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
    if (this.#overlays.length > 0) {
      let overlay: OverlayHit | undefined
      try {
        overlay = await runAsync(locateOverlaySteps(this.#overlays, ref.id), asyncSkillFs)
      } catch (cause) {
        throw unreadable(ref, cause)
      }
      if (!sameOverlay(overlay, entry.overlay)) throw notFound(ref, 'changed on disk')
    }
    // The digest of this very scan (cached only for its identity), never discovery's word for it,
    // and each file's pinned hash, which every read below is held to.
    if (!this.#pins) return { entry, scan }
    const { files } = await this.#pins.pinnedFiles(ref.id, entry.dir, scan)
    return { entry, scan, pinned: files }
  }

  /**
   * The bytes of file `rel` of a current skill, within `maxBytes`, read from
   * the scan that proved it current. Under a lock the bytes must hash to the
   * file's pinned SHA-256, else `E_SKILL_NOT_PINNED` (reason `changed`): a
   * rewrite that kept the file's size, inode and mtime (a restoring
   * `utimes`) keeps the scan identity and so the kept digest, but never
   * gets a changed byte past this check. Such a folder's digest is then
   * forgotten and its folder read again by the next walk, so the catalog
   * shows the change.
   */
  async read(current: CurrentSkill, rel: string, maxBytes: number): Promise<Uint8Array> {
    const { entry, scan, pinned } = current
    const file = scan.files.get(rel)
    // Callers name files of this scan; a path it lacks is a stale ref, not a model's word to echo.
    if (!file)
      throw notFound({ id: entry.manifest.name, version: entry.version }, 'has no such file')
    const bytes = await readScanned(scan, rel, file, maxBytes)
    if (pinned && pinned.get(rel) !== fileSha256(bytes)) {
      this.#digests.forget(entry.dir)
      this.#cache.invalidate(entry.dir)
      throw notPinnedBytes(entry.manifest.name, rel)
    }
    return bytes
  }

  /** `read`, decoded as strict UTF-8 (see `decodeSkillText`). */
  async readText(current: CurrentSkill, rel: string, maxBytes: number): Promise<string> {
    return decodeSkillText(await this.read(current, rel, maxBytes), rel)
  }
}
