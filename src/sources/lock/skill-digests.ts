import { type FsSteps, runAsync } from '../discovery/fs-steps.js'
import type { SkillFolderScan } from '../discovery/scan-skill-folder.js'
import { asyncSkillFs } from '../discovery/skill-fs.js'
import { skillDigestSteps } from './skill-digest.js'

/** Runs digest steps with a discovery driver (direct calls or the thread pool). */
export type DigestRunner = (steps: FsSteps<string>) => string | Promise<string>

/** A content digest and each file's own SHA-256 (base64, by scan path), all from the same bytes. */
export interface FileDigests {
  readonly digest: string
  readonly files: ReadonlyMap<string, string>
}

const POOL: DigestRunner = (steps) => runAsync(steps, asyncSkillFs)

/** What is kept per folder: the scan identity, its digest, and the per-file hashes when taken. */
interface Kept {
  readonly hash: string
  readonly digest: string
  readonly files?: ReadonlyMap<string, string>
}

/**
 * The content digests a source has taken, one per skill folder, each kept
 * with the scan identity it was computed for (the scan's hash of every
 * file's path, size, mtime and inode) and reused only for a scan with that
 * same identity: a rediscovery of an unchanged skill reads none of its
 * files. A scan identity can be kept by a rewrite that restores the mtime,
 * so a kept digest says what the files held when they were hashed, not what
 * they hold now: a locked source checks every byte it hands out against the
 * per-file hashes (`fileDigests`, see `readCurrent` in `served-skills.ts`).
 * The digest's own reads are checked against the scan they hash (see
 * `skillDigestSteps`).
 */
export class SkillDigests {
  readonly #maxFileBytes: number
  readonly #byFolder = new Map<string, Kept>()

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
   * cached for this scan identity like `digest`. What a lock holds every
   * read of a locked skill to (`SkillPins.pinnedFiles`).
   */
  async fileDigests(
    dir: string,
    scan: SkillFolderScan,
    run: DigestRunner = POOL,
    known?: ReadonlyMap<string, Uint8Array>,
  ): Promise<FileDigests> {
    const kept = this.#byFolder.get(dir)
    if (kept?.hash === scan.hash && kept.files) return { digest: kept.digest, files: kept.files }
    const files = new Map<string, string>()
    const digest = await run(skillDigestSteps(scan, this.#maxFileBytes, known, files))
    this.#byFolder.set(dir, { hash: scan.hash, digest, files })
    return { digest, files }
  }

  /** How many folders have a digest kept. */
  get size(): number {
    return this.#byFolder.size
  }

  /** Forgets what was kept for folder `dir` (its files were found to hold other bytes than it says). */
  forget(dir: string): void {
    this.#byFolder.delete(dir)
  }

  /** Forgets the digests of folders not in `dirs` (those a completed discovery no longer serves). */
  keepOnly(dirs: ReadonlySet<string>): void {
    for (const dir of this.#byFolder.keys()) if (!dirs.has(dir)) this.#byFolder.delete(dir)
  }
}
