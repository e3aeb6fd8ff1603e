import * as crypto from 'node:crypto'
import type { SkillFileEntry } from './scan-skill-folder.js'

// One-shot hashing (Node >= 20.12) is about 3x cheaper than a Hash object.
const oneShotHash = (crypto as { hash?: (alg: string, data: string, enc: 'base64url') => string })
  .hash

/** A short digest of relative paths, sizes, mtimes, ctimes and inodes, in path order. */
export function hashFiles(files: ReadonlyMap<string, SkillFileEntry>): string {
  let text = ''
  const rels = files.size === 1 ? files.keys() : [...files.keys()].sort()
  for (const rel of rels) {
    const f = files.get(rel)!
    text += `${rel}\0${f.size}\0${f.mtimeMs}\0${f.ctimeMs}\0${f.ino}\n`
  }
  return shortDigest(text)
}

/** The 16-character digest every skill version hash uses. */
export function shortDigest(text: string): string {
  const digest = oneShotHash
    ? oneShotHash('sha1', text, 'base64url')
    : crypto.createHash('sha1').update(text).digest('base64url')
  return digest.slice(0, 16)
}
