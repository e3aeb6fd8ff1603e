import { createHash } from 'node:crypto'
import { SkillHostError } from '../../common/errors.js'

/**
 * What a per-file digest looks like: `sha256:` and 64 lowercase hex digits of
 * the SHA-256 of the file's raw bytes (the MCP Skills Extension's format; see
 * docs/mcp.md). Lockfiles and the extension's manifests use exactly this.
 */
export const SKILL_FILE_DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/

/** The per-file digest (`SKILL_FILE_DIGEST_PATTERN`) of `bytes`. */
export function skillFileDigest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

/** The per-file digest of a SHA-256 given in base64 (as `fileSha256` returns it): the same hash, re-spelled. */
export function skillFileDigestOfBase64(sha256Base64: string): string {
  return `sha256:${Buffer.from(sha256Base64, 'base64').toString('hex')}`
}

/** True for a string shaped like a per-file digest (`SKILL_FILE_DIGEST_PATTERN`). */
export function isSkillFileDigest(value: unknown): value is string {
  return typeof value === 'string' && SKILL_FILE_DIGEST_PATTERN.test(value)
}

/** One file of a skill with its size and per-file digest, as a manifest lists it. */
export interface SkillManifestFile {
  /** Normalized path relative to the skill folder; `SKILL.md` included. */
  readonly path: string
  readonly size: number
  /** `sha256:<hex>` of exactly `size` bytes. */
  readonly digest: string
}

/**
 * Every file of one skill at one version, with digests taken from the bytes
 * read, the SKILL.md frontmatter as written, and a reader that hands out
 * only bytes matching the digest listed for that path.
 */
export interface SkillFileManifest {
  readonly id: string
  readonly version: string
  /** The SKILL.md YAML frontmatter as a JSON value: every key the author wrote. */
  readonly frontmatter: Readonly<Record<string, unknown>>
  /** Every file, SKILL.md included, in path order (UTF-16 code units). */
  readonly files: readonly SkillManifestFile[]
  /** The sum of `files`' sizes. */
  readonly totalBytes: number
  /**
   * The source's content digest of the same reads (a lockfile's `digest`,
   * `sha256-…`), when the source takes one: so a lock entry's `digest` and
   * `files` always describe one and the same content.
   */
  readonly contentDigest?: string
  /**
   * The bytes of one listed file, checked against its listed size and digest
   * (`E_SKILL_SOURCE_FAILED` when the file changed since); `E_SKILL_NOT_FOUND`
   * for a path not listed.
   */
  read(path: string, options?: { readonly signal?: AbortSignal }): Promise<Uint8Array>
}

/** Bounds a manifest must stay within; a skill beyond them is refused before any file is hashed. */
export interface SkillManifestBounds {
  readonly maxFiles: number
  readonly maxTotalBytes: number
}

/** Options for `SkillSource.manifest`. */
export interface SkillManifestOptions {
  readonly signal?: AbortSignal
  /** When given, a skill with more files or bytes is `E_SKILL_SOURCE_TOO_LARGE` (data: `files`, `bytes`). */
  readonly bounds?: SkillManifestBounds
}

/**
 * Checks a skill's file count and total size against `bounds` before
 * anything is hashed: `E_SKILL_SOURCE_TOO_LARGE` naming both figures.
 */
export function checkManifestBounds(
  id: string,
  files: number,
  bytes: number,
  bounds: SkillManifestBounds | undefined,
): void {
  if (!bounds || (files <= bounds.maxFiles && bytes <= bounds.maxTotalBytes)) return
  throw new SkillHostError(
    'E_SKILL_SOURCE_TOO_LARGE',
    `Skill "${id}" has ${files} files of ${bytes} bytes in all; the limits are ${bounds.maxFiles} files and ${bounds.maxTotalBytes} bytes.`,
    { data: { skill: id, files, bytes } },
  )
}

/**
 * The reader `SkillFileManifest.read` is: `readListed` reads a listed file, whose
 * bytes must then match the listed size and digest, or the read fails with
 * `E_SKILL_SOURCE_FAILED` (the file changed after the manifest was taken).
 */
export function verifiedReader(
  id: string,
  files: readonly SkillManifestFile[],
  readListed: (path: string, signal?: AbortSignal) => Promise<Uint8Array>,
): SkillFileManifest['read'] {
  const byPath = new Map(files.map((f) => [f.path, f]))
  return async (path, options = {}) => {
    const listed = byPath.get(path)
    if (!listed) {
      throw new SkillHostError('E_SKILL_NOT_FOUND', `Skill "${id}" has no file "${path}".`, {
        data: { path },
      })
    }
    const bytes = await readListed(path, options.signal)
    if (bytes.byteLength !== listed.size || skillFileDigest(bytes) !== listed.digest) {
      throw new SkillHostError(
        'E_SKILL_SOURCE_FAILED',
        `A file of skill "${id}" changed after its digest was taken; list the skill again.`,
        { data: { skill: id, path } },
      )
    }
    return bytes
  }
}
