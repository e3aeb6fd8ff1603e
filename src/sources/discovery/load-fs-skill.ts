import { SkillHostError } from '../../common/errors.js'
import { decodeSkillHead, decodeSkillText } from '../../manifest/decode-skill-text.js'
import { OPENAI_YAML_FILE, parseOpenAiYaml } from '../../manifest/parse-openai-yaml.js'
import { parseSkillMd } from '../../manifest/parse-skill-md.js'
import {
  parseSkillSidecar,
  SKILL_SIDECAR_FILE,
  type SkillSidecar,
} from '../../manifest/parse-skill-sidecar.js'
import {
  type SkillManifest,
  validateSkillManifest,
} from '../../manifest/validate-skill-manifest.js'
import type {
  PermissionRequestParse,
  SkillPermissionRequest,
} from '../../skill-model/permission-request.js'
import {
  locateOverlaySteps,
  OVERLAY_SIDECAR_LABEL,
  type OverlayHit,
  overlaidHash,
  readOverlayTextSteps,
} from '../overlays/skill-overlays.js'
import type { SkillSourceLimits } from '../source-limits.js'
import { type FsSteps, runAsync } from './fs-steps.js'
import {
  readScannedStep,
  type SkillFileEntry,
  type SkillFolderScan,
  scanSkillFolderSteps,
} from './scan-skill-folder.js'
import { asyncSkillFs, type CappedFile, childPath, type DirEntry } from './skill-fs.js'

/**
 * What an entry keeps of a validated manifest: all of it but `extra` (every
 * unknown frontmatter key, 6 MB over 24,000 real skills), of which a source
 * reads one key, kept as `disableModelInvocation`.
 */
export type EntryManifest = Omit<SkillManifest, 'extra'> & {
  /** The frontmatter's `disable-model-invocation: true` (a Claude Code key, in `extra`). */
  readonly disableModelInvocation?: true
}

function entryManifest(manifest: SkillManifest): EntryManifest {
  const { extra, ...kept } = manifest
  return extra['disable-model-invocation'] === true
    ? { ...kept, disableModelInvocation: true }
    : kept
}

/** A skill folder that passed validation: everything a source caches about it. */
export interface FsSkillEntry {
  readonly dir: string
  readonly manifest: EntryManifest
  readonly scan: SkillFolderScan
  readonly sidecar?: SkillSidecar
  /** The deployer's overlay sidecar, when one applies; `sidecar` then came from it. */
  readonly overlay?: OverlayHit
  /** What the skill's scripts ask for: the sidecar's `permissions`, else `agents/openai.yaml`'s. */
  readonly permissions?: SkillPermissionRequest
  readonly version: string
  readonly warnings: readonly string[]
}

/** The outcome for one folder: an entry, or the errors that kept it out. */
export type FsSkillOutcome =
  | { readonly ok: true; readonly entry: FsSkillEntry }
  | {
      readonly ok: false
      readonly code: string
      readonly errors: readonly string[]
      /** Skills nested inside the folder (see `SkillFolderScan.nested`), when it was scanned. */
      readonly nested?: readonly string[]
    }

type FsSkillFailure = Extract<FsSkillOutcome, { ok: false }>

/** Options for `loadFsSkillSteps`. */
export interface LoadFsSkillOptions {
  readonly limits: SkillSourceLimits
  readonly strict: boolean
  /** Overlay directories (absolute), earlier first; see `locateOverlaySteps`. */
  readonly overlays?: readonly string[]
  /**
   * Receives the bytes of each SKILL.md read, checked against the folder's
   * scan, so a caller that hashes the skill's content (a lock) need not read
   * it again. When absent, the read may use a reused buffer.
   */
  readonly onSkillMd?: ((dir: string, bytes: Uint8Array) => void) | undefined
  /** Stat only the files the loader reads in a skill without a sidecar (see `scanSkillFolderSteps`'s `lean`). */
  readonly statLoadedOnly?: boolean
}

/** The entry of `rel` in a scan, when it exists and fits in `max` bytes. */
function sizedFile(scan: SkillFolderScan, rel: string, max: number): SkillFileEntry {
  const file = scan.files.get(rel)
  if (!file) throw new SkillHostError('E_SKILL_NOT_FOUND', `The skill has no file "${rel}".`)
  if (file.size > max) {
    throw new SkillHostError(
      'E_SKILL_SOURCE_TOO_LARGE',
      `${rel} is ${file.size} bytes; the limit is ${max}.`,
    )
  }
  return file
}

/**
 * Reads a scanned skill file as UTF-8 within `max` bytes, refusing a file
 * that is no longer the one the scan saw.
 */
export function* readSkillTextSteps(
  scan: SkillFolderScan,
  rel: string,
  max: number,
): FsSteps<string> {
  const file = sizedFile(scan, rel, max)
  // Decoded at once, so the read may use a reused buffer.
  return decodeSkillText((yield* readScannedStep(scan, rel, file, max, true)).bytes, rel)
}

/** `readSkillTextSteps` through the thread pool. */
export function readSkillText(scan: SkillFolderScan, rel: string, max: number): Promise<string> {
  return runAsync(readSkillTextSteps(scan, rel, max), asyncSkillFs)
}

/**
 * Validates a `skillhost.yaml`'s text, checking each declared file exists in
 * the skill's scan (so it passed `normalizeSkillPath` and the scan's symlink
 * rules). `label` names the file: the skill's own or a deployer's overlay.
 */
function checkSidecar(scan: SkillFolderScan, text: string, label: string): SkillSidecar {
  const sidecar = parseSkillSidecar(text, label)
  const missing: string[] = []
  sidecar.scripts.forEach((s, i) => {
    if (!scan.files.has(s.path))
      missing.push(`scripts[${i}].path "${s.path}" is not a file of the skill`)
  })
  sidecar.isolatedTools.forEach((t, i) => {
    if (!scan.files.has(t.source))
      missing.push(`isolatedTools[${i}].source "${t.source}" is not a file of the skill`)
  })
  if (sidecar.module && !scan.files.has(sidecar.module))
    missing.push(`module "${sidecar.module}" is not a file of the skill`)
  if (missing.length > 0) {
    throw new SkillHostError(
      'E_SKILL_MANIFEST_INVALID',
      `${label} is invalid: ${missing.join('; ')}`,
      {
        data: { problems: missing },
      },
    )
  }
  return sidecar
}

/**
 * The part of a SKILL.md the manifest is made from: the head (frontmatter)
 * alone, so discovery keeps no body text, unless a lenient host may take a
 * missing description from the body's first paragraph (a head without a
 * top-level `description:` line), where the whole text is decoded.
 */
function manifestText(bytes: Uint8Array, options: LoadFsSkillOptions): string {
  const head = decodeSkillHead(bytes)
  if (options.strict === true || /^description\s*:/m.test(head)) return head
  return decodeSkillText(bytes)
}

/** The validated manifest of a SKILL.md's text, or the outcome that rejects it. */
function validateText(
  text: string,
  folderName: string,
  options: LoadFsSkillOptions,
): { ok: true; manifest: EntryManifest; warnings: readonly string[] } | FsSkillFailure {
  // A lenient host takes a SKILL.md without frontmatter as Claude Code does.
  const { frontmatter, body, missing } = parseSkillMd(text, {
    maxFrontmatterBytes: options.limits.maxFrontmatterBytes,
    allowMissing: options.strict !== true,
  })
  const verdict = validateSkillManifest(frontmatter, {
    folderName,
    strict: options.strict,
    body,
  })
  if (!verdict.ok || !verdict.manifest) {
    return { ok: false, code: 'E_SKILL_MANIFEST_INVALID', errors: verdict.errors }
  }
  const warnings = missing
    ? ['SKILL.md has no YAML frontmatter; it is read as Claude Code reads it', ...verdict.warnings]
    : verdict.warnings
  return { ok: true, manifest: entryManifest(verdict.manifest), warnings }
}

function toEntry(
  dir: string,
  manifest: EntryManifest,
  manifestWarnings: readonly string[],
  scan: SkillFolderScan,
  sidecar: SkillSidecar | undefined,
  overlay: OverlayHit | undefined,
  overlayWarning: string | undefined,
  requested: PermissionRequestParse,
): FsSkillOutcome {
  const hash = overlaidHash(scan.hash, overlay)
  const version = manifest.version ? `${manifest.version}+${hash}` : hash
  const warnings =
    scan.warnings.length === 0 && overlayWarning === undefined && requested.warnings.length === 0
      ? manifestWarnings
      : [
          ...manifestWarnings,
          ...scan.warnings,
          ...(overlayWarning === undefined ? [] : [overlayWarning]),
          ...requested.warnings,
        ]
  const permissions = requested.request
  const entry: FsSkillEntry = sidecar
    ? {
        dir,
        manifest,
        scan,
        sidecar,
        ...(overlay && { overlay }),
        ...(permissions && { permissions }),
        version,
        warnings,
      }
    : { dir, manifest, scan, ...(permissions && { permissions }), version, warnings }
  return { ok: true, entry }
}

const NO_REQUEST: PermissionRequestParse = Object.freeze({ request: undefined, warnings: [] })

/**
 * The permission request of a skill with no `permissions` in its sidecar:
 * `agents/openai.yaml`'s, read within the frontmatter cap (64 KiB by
 * default: it is metadata, like frontmatter). Never fails the
 * skill: an unreadable or hostile file is a warning and no request.
 */
function* openAiPermissionsSteps(
  scan: SkillFolderScan,
  max: number,
): FsSteps<PermissionRequestParse> {
  if (!scan.files.has(OPENAI_YAML_FILE)) return NO_REQUEST
  let text: string
  try {
    text = yield* readSkillTextSteps(scan, OPENAI_YAML_FILE, max)
  } catch (err) {
    const code = SkillHostError.isInstance(err) ? err.code : 'unreadable'
    return {
      request: undefined,
      warnings: [`${OPENAI_YAML_FILE} could not be read (${code}); its permissions were ignored`],
    }
  }
  return parseOpenAiYaml(text)
}

/** Shown when a deployer's overlay replaces the sidecar a skill ships. */
export const OVERLAY_WINS_WARNING = `the skill's own ${SKILL_SIDECAR_FILE} is ignored: the deployer's ${OVERLAY_SIDECAR_LABEL} replaces it`

/**
 * The sidecar that applies to a validated skill: the deployer's overlay for
 * `id` when there is one (the skill's own is then not read, and a warning
 * says so), else the skill's own `skillhost.yaml`. Both go through
 * `checkSidecar` within the same byte cap.
 */
function* sidecarSteps(
  scan: SkillFolderScan,
  id: string,
  options: LoadFsSkillOptions,
): FsSteps<{ sidecar?: SkillSidecar; overlay?: OverlayHit; warning?: string }> {
  const max = options.limits.maxSkillMdBytes
  const overlays = options.overlays
  const overlay =
    overlays && overlays.length > 0 ? yield* locateOverlaySteps(overlays, id) : undefined
  if (overlay) {
    const text = yield* readOverlayTextSteps(overlay, max)
    return {
      sidecar: checkSidecar(scan, text, OVERLAY_SIDECAR_LABEL),
      overlay,
      ...(scan.files.has(SKILL_SIDECAR_FILE) && { warning: OVERLAY_WINS_WARNING }),
    }
  }
  if (!scan.files.has(SKILL_SIDECAR_FILE)) return {}
  const text = yield* readSkillTextSteps(scan, SKILL_SIDECAR_FILE, max)
  return { sidecar: checkSidecar(scan, text, SKILL_SIDECAR_FILE) }
}

function failed(err: unknown): FsSkillFailure {
  if (SkillHostError.isInstance(err)) return { ok: false, code: err.code, errors: [err.message] }
  const errno = (err as NodeJS.ErrnoException).code ?? 'unknown error'
  return {
    ok: false,
    code: 'E_SKILL_SOURCE_FAILED',
    errors: [`the skill folder could not be read (${errno})`],
  }
}

/** A failure that still names the skills nested in a folder it scanned. */
function withNested(failure: FsSkillFailure, scan: SkillFolderScan | undefined): FsSkillFailure {
  return scan && scan.nested.length > 0 ? { ...failure, nested: scan.nested } : failure
}

/** `SKILL.md` among a folder's entries, when it is a plain file. */
function plainSkillMd(entries: readonly DirEntry[] | undefined): boolean {
  if (!entries) return false
  for (const e of entries) if (e.name === 'SKILL.md') return e.isFile()
  return false
}

/**
 * Scans, reads and validates one skill folder. Never throws: any failure
 * (too large, unreadable, bad UTF-8, bad YAML, failed validation, bad sidecar)
 * comes back as `{ ok: false }` with a code and model-safe messages, so a bad
 * skill never becomes a partial catalog entry. The sidecar is the deployer's
 * overlay for the skill's id when `options.overlays` holds one, else the
 * skill's own. The version is the folder's stat hash (with the overlay's, see
 * `overlaidHash`), prefixed by the manifest's `version` when it has one. `entries`
 * may pass the folder's listing, already read.
 */
export function* loadFsSkillSteps(
  dir: string,
  folderName: string,
  options: LoadFsSkillOptions,
  entries?: readonly DirEntry[],
): FsSteps<FsSkillOutcome> {
  const max = options.limits.maxSkillMdBytes
  let scan: SkillFolderScan | undefined
  try {
    // When SKILL.md is a plain file, read it first: the open descriptor's stat
    // serves the folder scan too, saving one filesystem call per skill.
    let text: string | undefined
    let known: Map<string, SkillFileEntry> | undefined
    if (plainSkillMd(entries)) {
      const abs = childPath(dir, 'SKILL.md')
      // Yielded directly, not through `readCappedStep`: one generator fewer per skill.
      const file = (yield {
        op: 'readCapped',
        path: abs,
        maxBytes: max,
        label: 'SKILL.md',
        transient: options.onSkillMd === undefined,
      }) as CappedFile
      text = manifestText(file.bytes, options)
      options.onSkillMd?.(dir, file.bytes)
      known = new Map<string, SkillFileEntry>().set('SKILL.md', {
        size: file.size,
        mtimeMs: file.mtimeMs,
        ctimeMs: file.ctimeMs,
        ino: file.ino,
      })
    }
    scan = yield* scanSkillFolderSteps(dir, options.limits, entries, known, options.statLoadedOnly)
    if (text === undefined) {
      const file = sizedFile(scan, 'SKILL.md', max)
      const keep = options.onSkillMd
      const { bytes } = yield* readScannedStep(scan, 'SKILL.md', file, max, keep === undefined)
      text = manifestText(bytes, options)
      keep?.(dir, bytes)
    }
    const valid = validateText(text, folderName, options)
    if (!valid.ok) return withNested(valid, scan)
    const { sidecar, overlay, warning } = yield* sidecarSteps(scan, valid.manifest.name, options)
    const requested =
      sidecar?.permissions === undefined
        ? yield* openAiPermissionsSteps(scan, options.limits.maxFrontmatterBytes)
        : { request: sidecar.permissions, warnings: [] }
    return toEntry(dir, valid.manifest, valid.warnings, scan, sidecar, overlay, warning, requested)
  } catch (err) {
    return withNested(failed(err), scan)
  }
}
