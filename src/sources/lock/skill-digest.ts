import { createHash } from 'node:crypto'
import { allSteps, type FsSteps } from '../discovery/fs-steps.js'
import { readScannedStep, type SkillFolderScan } from '../discovery/scan-skill-folder.js'
import type { CappedFile } from '../discovery/skill-fs.js'

/** What a skill content digest looks like: `sha256-` and 44 characters of base64 (as in SRI and npm's `integrity`). */
export const SKILL_DIGEST_PATTERN = /^sha256-[A-Za-z0-9+/]{43}=$/

/** Opens the hashed stream: names the framing, so a later framing can never collide with this one. */
const DOMAIN = 'skillhost-skill-digest/1\n'

/** Files read at once through the thread pool (their bytes are then hashed in path order). */
const BATCH_FILES = 32
/** Bytes read at once; a larger file is read alone. */
const BATCH_BYTES = 8 * 1024 * 1024

const encoder = new TextEncoder()

/** An unsigned 64-bit big-endian length. */
function lengthPrefix(n: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(n))
  return out
}

const byBytes = (a: [Uint8Array, string], b: [Uint8Array, string]): number =>
  Buffer.compare(a[0], b[0])

/** Paths in digest order (their UTF-8 bytes), each with its encoding. */
function digestOrder(paths: Iterable<string>): [Uint8Array, string][] {
  return [...paths].map((rel): [Uint8Array, string] => [encoder.encode(rel), rel]).sort(byBytes)
}

/**
 * The digest's framing, the one implementation: a domain line, then per file
 * (fed in `digestOrder`) its path and content, each length-prefixed.
 */
class DigestFraming {
  readonly #hash = createHash('sha256').update(DOMAIN)
  add(path: Uint8Array, content: Uint8Array): void {
    this.#hash.update(lengthPrefix(path.byteLength)).update(path)
    this.#hash.update(lengthPrefix(content.byteLength)).update(content)
  }
  digest(): string {
    return `sha256-${this.#hash.digest('base64')}`
  }
}

/**
 * The content digest (`skillDigestSteps`'s, byte for byte) of files already
 * in memory, by normalized path: how a source that holds a skill's verified
 * bytes rather than a folder (a remote server's) pins what it serves.
 */
export function skillContentDigest(files: ReadonlyMap<string, Uint8Array>): string {
  const framing = new DigestFraming()
  for (const [path, rel] of digestOrder(files.keys())) framing.add(path, files.get(rel)!)
  return framing.digest()
}

/**
 * The content digest of the skill folder a scan saw: SHA-256 over a domain
 * line, then for every file in order of its normalized path's UTF-8 bytes,
 * the path's length (u64, big-endian), the path, the content's length and
 * the content. Every field is length-prefixed, so no two file sets frame to
 * the same stream: a renamed, added, removed or changed file changes the
 * digest; mtime, inode, permissions and `readdir` order never do. Each file
 * is read once, within `maxFileBytes`, and must still be the file the scan
 * saw (`E_SKILL_SOURCE_FAILED` otherwise), so the digest belongs to this
 * scan and to no other. `known` holds bytes the caller already read and
 * checked against this scan (discovery's SKILL.md): those are not read again.
 * `perFile`, when given, receives each file's own SHA-256 (base64) taken from
 * the very bytes hashed into the digest, so it pins exactly what the digest
 * pins (see `pinned-imports.ts`).
 */
export function* skillDigestSteps(
  scan: SkillFolderScan,
  maxFileBytes: number,
  known?: ReadonlyMap<string, Uint8Array>,
  perFile?: Map<string, string>,
): FsSteps<string> {
  const order = digestOrder(scan.files.keys())
  const framing = new DigestFraming()
  for (let i = 0; i < order.length; ) {
    // A batch of reads in flight at once (concurrent under the async driver), hashed in order.
    const batch: [Uint8Array, string][] = []
    let bytes = 0
    while (i < order.length && batch.length < BATCH_FILES) {
      const next = order[i]!
      const size = scan.files.get(next[1])!.size
      if (batch.length > 0 && bytes + size > BATCH_BYTES) break
      batch.push(next)
      bytes += size
      i += 1
    }
    // Bytes the caller already read for this scan (SKILL.md during discovery) are not read again.
    const unread = batch.filter(([, rel]) => !known?.has(rel))
    const reads = unread.map(([, rel]) => {
      const file = scan.files.get(rel)!
      return readScannedStep(scan, rel, file, maxFileBytes)
    })
    const files: CappedFile[] =
      reads.length === 0 ? [] : reads.length === 1 ? [yield* reads[0]!] : yield* allSteps(reads)
    let next = 0
    batch.forEach(([path, rel]) => {
      const content = known?.get(rel) ?? files[next++]!.bytes
      framing.add(path, content)
      perFile?.set(rel, fileSha256(content))
    })
  }
  return framing.digest()
}

/** The SHA-256 (base64) of one file's bytes or of a module source as Node hands it to V8. */
export function fileSha256(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('base64')
}

/** True for a string shaped like a skill content digest (`SKILL_DIGEST_PATTERN`). */
export function isSkillDigest(value: unknown): value is string {
  return typeof value === 'string' && SKILL_DIGEST_PATTERN.test(value)
}
