import { type FsSteps, runAsync } from './fs-steps.js'
import type { SkillFolderScan } from './scan-skill-folder.js'
import { skillDigestSteps } from './skill-digest.js'
import { asyncSkillFs } from './skill-fs.js'

/** Runs digest steps with a discovery driver (direct calls or the thread pool). */
export type DigestRunner = (steps: FsSteps<string>) => string | Promise<string>

/** A content digest and each file's own SHA-256 (base64, by scan path), all from the same bytes. */
export interface FileDigests {
  readonly digest: string
  readonly files: ReadonlyMap<string, string>
}

const POOL: DigestRunner = (steps) => runAsync(steps, asyncSkillFs)

/**
 * The content digests a source has taken, one per skill folder, each kept
 * with the scan identity it was computed for (the scan's hash of every
 * file's path, size, mtime and inode) and reused only for a scan with that
 * same identity: a rediscovery of an unchanged skill reads none of its
 * files, and a digest is never trusted for a folder that changed since. The
 * digest's own reads are checked against the scan they hash (see
 * `skillDigestSteps`).
 */
export class SkillDigests {
  readonly #maxFileBytes: number
  readonly #byFolder = new Map<string, { readonly hash: string; readonly digest: string }>()
  readonly #filesByFolder = new Map<
    string,
    { readonly hash: string; readonly value: FileDigests }
  >()

  /** `maxFileBytes`: the largest file read (a larger one fails the digest). */
  constructor(maxFileBytes: number) {
    this.#maxFileBytes = maxFileBytes
  }

  /**
   * The content digest of `scan` (of folder `dir`): cached for this scan
   * identity, else read once (`known`: bytes already read for this scan).
   */
  async digest(
    dir: string,
    scan: SkillFolderScan,
    run: DigestRunner = POOL,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<string> {
    const kept = this.#byFolder.get(dir)
    if (kept?.hash === scan.hash) return kept.digest
    const digest = await run(skillDigestSteps(scan, this.#maxFileBytes, known))
    this.#byFolder.set(dir, { hash: scan.hash, digest })
    return digest
  }

  /**
   * The content digest of `scan` with each file's own SHA-256, hashed from
   * the same reads (so the per-file hashes pin exactly what the digest pins);
   * cached for this scan identity like `digest`. Read only for a locked
   * skill whose module is imported (see `pinned-imports.ts`).
   */
  async fileDigests(dir: string, scan: SkillFolderScan): Promise<FileDigests> {
    const kept = this.#filesByFolder.get(dir)
    if (kept?.hash === scan.hash) return kept.value
    const files = new Map<string, string>()
    const digest = await POOL(skillDigestSteps(scan, this.#maxFileBytes, undefined, files))
    const value: FileDigests = { digest, files }
    this.#filesByFolder.set(dir, { hash: scan.hash, value })
    this.#byFolder.set(dir, { hash: scan.hash, digest })
    return value
  }

  /** How many folders have a digest kept. */
  get size(): number {
    return this.#byFolder.size
  }

  /** Forgets the digests of folders not in `dirs` (those a completed discovery no longer serves). */
  keepOnly(dirs: ReadonlySet<string>): void {
    for (const dir of this.#byFolder.keys()) if (!dirs.has(dir)) this.#byFolder.delete(dir)
    for (const dir of this.#filesByFolder.keys())
      if (!dirs.has(dir)) this.#filesByFolder.delete(dir)
  }
}
