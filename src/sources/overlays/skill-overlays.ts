import { dirname, resolve } from 'node:path'
import { SkillHostError } from '../../common/errors.js'
import { decodeSkillText } from '../../manifest/decode-skill-text.js'
import {
  parseSkillSidecar,
  SKILL_SIDECAR_FILE,
  type SkillSidecar,
} from '../../manifest/parse-skill-sidecar.js'
import {
  type FsSteps,
  readCappedStep,
  realpathStep,
  runAsync,
  statStep,
} from '../discovery/fs-steps.js'
import { shortDigest } from '../discovery/hash-files.js'
import { asyncSkillFs, childPath, type FileIdentity } from '../discovery/skill-fs.js'

/** How an overlay sidecar is named in messages: model-safe, never a host path. */
export const OVERLAY_SIDECAR_LABEL = `overlay ${SKILL_SIDECAR_FILE}`

/** An overlay sidecar found for a skill: where it is and what its file was when found. */
export interface OverlayHit {
  /** Host path of the sidecar, symlinks resolved. */
  readonly path: string
  readonly identity: FileIdentity
}

/**
 * True when `id` can name a folder of an overlay directory: one path segment,
 * not `.` or `..`, no separator, NUL or other control character. A lenient
 * catalog may serve ids that cannot (a name with `/`); they get no overlay,
 * so a skill's chosen name never points a lookup outside the overlay directory.
 */
export function isOverlayKey(id: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is rejected
  return id !== '.' && id !== '..' && id.length > 0 && !/[/\\\u0000-\u001f\u007f]/.test(id)
}

/**
 * The one layout rule for overlays: the sidecar for skill `id` under overlay
 * directory `dir` is `<dir>/<id>/skillhost.yaml`. Undefined for an id that is
 * not an overlay key.
 */
export function overlaySidecarPath(dir: string, id: string): string | undefined {
  return isOverlayKey(id) ? childPath(childPath(dir, id), SKILL_SIDECAR_FILE) : undefined
}

/** Overlay directories as absolute paths, in the order given (earlier ones win). */
export function resolveOverlayDirs(overlays: string | readonly string[] | undefined): string[] {
  if (overlays === undefined) return []
  return (typeof overlays === 'string' ? [overlays] : [...overlays]).map((d) => resolve(d))
}

const MISSING = new Set(['ENOENT', 'ENOTDIR'])

/**
 * Finds the overlay sidecar for `id`: the first overlay directory, in order,
 * holding `<id>/skillhost.yaml`, with the stat of the file it leads to (an
 * overlay is the deployer's, so symlinks in it are followed). A directory
 * without one costs a single call. Anything but "not there" is
 * `E_SKILL_SOURCE_FAILED` naming the overlay, never a host path. Discovery
 * and the freshness check behind every read both call this, so a sidecar
 * added, changed or removed after discovery makes old refs stale.
 */
export function* locateOverlaySteps(
  overlays: readonly string[],
  id: string,
): FsSteps<OverlayHit | undefined> {
  for (const dir of overlays) {
    const candidate = overlaySidecarPath(dir, id)
    if (candidate === undefined) return undefined
    try {
      const path = yield* realpathStep(candidate)
      const s = yield* statStep(path)
      return {
        path,
        identity: { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs },
      }
    } catch (err) {
      const errno = (err as NodeJS.ErrnoException).code
      if (errno !== undefined && MISSING.has(errno)) continue
      throw new SkillHostError(
        'E_SKILL_SOURCE_FAILED',
        `The ${OVERLAY_SIDECAR_LABEL} for this skill could not be read (${errno ?? 'error'}).`,
        { cause: err },
      )
    }
  }
  return undefined
}

/**
 * An overlay sidecar's text: the file `locateOverlaySteps` found (refused if
 * it changed since), within `maxBytes` (the cap a skill's own sidecar gets),
 * decoded as strict UTF-8.
 */
export function* readOverlayTextSteps(overlay: OverlayHit, maxBytes: number): FsSteps<string> {
  const file = yield* readCappedStep(
    overlay.path,
    maxBytes,
    OVERLAY_SIDECAR_LABEL,
    overlay.identity,
    true,
  )
  return decodeSkillText(file.bytes, OVERLAY_SIDECAR_LABEL)
}

/** Whether two overlay lookups found the same file in the same state (both none counts). */
export function sameOverlay(a: OverlayHit | undefined, b: OverlayHit | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return (
    a.path === b.path &&
    a.identity.ino === b.identity.ino &&
    a.identity.size === b.identity.size &&
    a.identity.mtimeMs === b.identity.mtimeMs &&
    a.identity.ctimeMs === b.identity.ctimeMs
  )
}

/**
 * The version hash of a skill folder with its overlay: the folder's stat
 * hash alone when there is none, else a digest of it and the overlay file's
 * path and stat, so editing, replacing, adding or removing the overlay
 * changes the skill's version.
 */
export function overlaidHash(scanHash: string, overlay: OverlayHit | undefined): string {
  if (overlay === undefined) return scanHash
  const { ino, size, mtimeMs, ctimeMs } = overlay.identity
  return shortDigest(
    `${scanHash}\0overlay\0${overlay.path}\0${size}\0${mtimeMs}\0${ctimeMs}\0${ino}`,
  )
}

/** An overlay sidecar on its own: the overlay folder holding it and what it declares. */
export interface OverlaySidecar {
  /** Host path of the overlay folder `<overlay>/<id>` (symlinks resolved). */
  readonly folder: string
  readonly sidecar: SkillSidecar
}

/**
 * The overlay sidecar for skill `id`, found as discovery finds it
 * (`locateOverlaySteps`), read within `maxBytes` and parsed by the one
 * sidecar parser, with no skill needed. Undefined when no overlay has one.
 * A sidecar that cannot be read or parsed throws its `SkillHostError` with
 * `data.folder` added; a failed lookup is `E_SKILL_SOURCE_FAILED`.
 */
export async function readOverlaySidecar(
  overlays: readonly string[],
  id: string,
  maxBytes: number,
): Promise<OverlaySidecar | undefined> {
  const hit = await runAsync(locateOverlaySteps(overlays, id), asyncSkillFs)
  if (!hit) return undefined
  const folder = dirname(hit.path)
  try {
    const text = await runAsync(readOverlayTextSteps(hit, maxBytes), asyncSkillFs)
    return { folder, sidecar: parseSkillSidecar(text, OVERLAY_SIDECAR_LABEL) }
  } catch (err) {
    if (!SkillHostError.isInstance(err)) throw err
    throw new SkillHostError(err.code, err.message, {
      data: { ...err.data, folder },
      cause: err,
    })
  }
}
