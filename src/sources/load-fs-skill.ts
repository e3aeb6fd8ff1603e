import type { Dirent } from 'node:fs'
import { join } from 'node:path'
import { SkillHostError } from '../common/errors.js'
import { decodeSkillText } from '../manifest/decode-skill-text.js'
import { parseSkillMd } from '../manifest/parse-skill-md.js'
import {
  parseSkillSidecar,
  SKILL_SIDECAR_FILE,
  type SkillSidecar,
} from '../manifest/parse-skill-sidecar.js'
import { type SkillManifest, validateSkillManifest } from '../manifest/validate-skill-manifest.js'
import { type SkillFileEntry, type SkillFolderScan, scanSkillFolder } from './scan-skill-folder.js'
import { asyncSkillFs, type SkillFs } from './skill-fs.js'
import type { SkillSourceLimits } from './source-limits.js'

/** A skill folder that passed validation: everything a source caches about it. */
export interface FsSkillEntry {
  readonly dir: string
  readonly manifest: SkillManifest
  readonly scan: SkillFolderScan
  readonly sidecar?: SkillSidecar
  readonly version: string
  readonly warnings: readonly string[]
}

/** The outcome for one folder: an entry, or the errors that kept it out. */
export type FsSkillOutcome =
  | { readonly ok: true; readonly entry: FsSkillEntry }
  | { readonly ok: false; readonly code: string; readonly errors: readonly string[] }

/** Options for `loadFsSkill`. */
export interface LoadFsSkillOptions {
  readonly limits: SkillSourceLimits
  readonly strict: boolean
  /** Filesystem calls to use; async by default. */
  readonly fs?: SkillFs
}

/** Reads a skill file as UTF-8 within `max` bytes. */
export async function readSkillText(
  scan: SkillFolderScan,
  rel: string,
  max: number,
  fs: SkillFs = asyncSkillFs,
): Promise<string> {
  const file = scan.files.get(rel)
  if (!file) throw new SkillHostError('E_SKILL_NOT_FOUND', `The skill has no file "${rel}".`)
  if (file.size > max) {
    throw new SkillHostError(
      'E_SKILL_SOURCE_TOO_LARGE',
      `${rel} is ${file.size} bytes; the limit is ${max}.`,
    )
  }
  return decodeSkillText((await fs.readCapped(file.abs, max, rel)).bytes, rel)
}

/** Reads and validates `skillhost.yaml`, checking each declared file exists in the skill. */
async function loadSidecar(
  scan: SkillFolderScan,
  limits: SkillSourceLimits,
  fs: SkillFs,
): Promise<SkillSidecar | undefined> {
  if (!scan.files.has(SKILL_SIDECAR_FILE)) return undefined
  const sidecar = parseSkillSidecar(
    await readSkillText(scan, SKILL_SIDECAR_FILE, limits.maxSkillMdBytes, fs),
  )
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
      `${SKILL_SIDECAR_FILE} is invalid: ${missing.join('; ')}`,
      {
        data: { problems: missing },
      },
    )
  }
  return sidecar
}

/**
 * Scans, reads and validates one skill folder. Never throws: any failure
 * (too large, unreadable, bad UTF-8, bad YAML, failed validation, bad sidecar)
 * comes back as `{ ok: false }` with a code and model-safe messages, so a bad
 * skill never becomes a partial catalog entry. The version is the folder's
 * stat hash, prefixed by the manifest's `version` when it has one.
 */
export async function loadFsSkill(
  dir: string,
  folderName: string,
  options: LoadFsSkillOptions,
  entries?: readonly Dirent[],
): Promise<FsSkillOutcome> {
  const fs = options.fs ?? asyncSkillFs
  try {
    // When SKILL.md is a plain file, read it first: the open descriptor's stat
    // serves the folder scan too, saving one filesystem call per skill.
    let text: string | undefined
    let known: Map<string, SkillFileEntry> | undefined
    if (entries?.find((e) => e.name === 'SKILL.md')?.isFile()) {
      const abs = join(dir, 'SKILL.md')
      const file = await fs.readCapped(abs, options.limits.maxSkillMdBytes, 'SKILL.md')
      text = decodeSkillText(file.bytes)
      known = new Map([
        ['SKILL.md', { abs, size: file.size, mtimeMs: file.mtimeMs, ino: file.ino }],
      ])
    }
    const scan = await scanSkillFolder(dir, options.limits, entries, known, fs)
    text ??= await readSkillText(scan, 'SKILL.md', options.limits.maxSkillMdBytes, fs)
    const { frontmatter } = parseSkillMd(text, {
      maxFrontmatterBytes: options.limits.maxFrontmatterBytes,
    })
    const verdict = validateSkillManifest(frontmatter, { folderName, strict: options.strict })
    if (!verdict.ok || !verdict.manifest) {
      return { ok: false, code: 'E_SKILL_MANIFEST_INVALID', errors: verdict.errors }
    }
    const sidecar = await loadSidecar(scan, options.limits, fs)
    const manifest = verdict.manifest
    const version = manifest.version ? `${manifest.version}+${scan.hash}` : scan.hash
    const warnings = [...verdict.warnings, ...scan.warnings]
    return {
      ok: true,
      entry: { dir, manifest, scan, ...(sidecar && { sidecar }), version, warnings },
    }
  } catch (err) {
    if (SkillHostError.isInstance(err)) return { ok: false, code: err.code, errors: [err.message] }
    const errno = (err as NodeJS.ErrnoException).code ?? 'unknown error'
    return {
      ok: false,
      code: 'E_SKILL_SOURCE_FAILED',
      errors: [`the skill folder could not be read (${errno})`],
    }
  }
}
