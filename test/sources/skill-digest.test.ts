import { createHash } from 'node:crypto'
import { rename, rm, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSync } from '../../src/sources/discovery/fs-steps.js'
import { loadFsSkillSteps } from '../../src/sources/discovery/load-fs-skill.js'
import { type SyncSkillFs, syncSkillFs } from '../../src/sources/discovery/skill-fs.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { SKILL_DIGEST_PATTERN, skillDigestSteps } from '../../src/sources/lock/skill-digest.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { rejectsWith } from '../helpers/error-code.js'
import { discover, skillMd, treesRemovedAfterEach, writeTree } from '../helpers/skill-tree.js'

const tree = treesRemovedAfterEach()

/** The digest of every skill a fresh source over `root` serves, by id. */
async function digests(root: string, io: 'sync' | 'async' = 'sync'): Promise<Map<string, string>> {
  const source = new FileSystemSkillSource({ roots: root, discoveryIo: io })
  const { skills } = await discover(source)
  const out = new Map<string, string>()
  for (const skill of skills) out.set(skill.id, await source.digest(skill))
  return out
}

async function digestOf(root: string, id = 's'): Promise<string> {
  const d = (await digests(root)).get(id)
  expect(d).toBeDefined()
  return d!
}

/** The documented framing, written out independently of the implementation. */
function expected(files: Record<string, string>): string {
  const hash = createHash('sha256').update('skillhost-skill-digest/1\n')
  const u64 = (n: number) => {
    const b = Buffer.alloc(8)
    b.writeBigUInt64BE(BigInt(n))
    return b
  }
  const paths = Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  for (const path of paths) {
    const p = Buffer.from(path)
    const c = Buffer.from(files[path]!)
    hash.update(u64(p.length)).update(p).update(u64(c.length)).update(c)
  }
  return `sha256-${hash.digest('base64')}`
}

describe('skill content digests', () => {
  it('follow the documented framing: sorted UTF-8 paths, length-prefixed path and bytes', async () => {
    const files = {
      'SKILL.md': skillMd('s'),
      'b.txt': 'bravo',
      'a/z.txt': 'zulu',
      'é.txt': 'accent',
      'Z.txt': '',
    }
    const root = await tree(
      Object.fromEntries(Object.entries(files).map(([k, v]) => [`s/${k}`, v])),
    )
    const digest = await digestOf(root)
    expect(digest).toMatch(SKILL_DIGEST_PATTERN)
    expect(digest).toBe(expected(files))
    // Both discovery drivers hash the same way.
    expect((await digests(root, 'async')).get('s')).toBe(digest)
  })

  it('do not depend on mtime, a touch, the folder name or readdir order', async () => {
    const root = await tree({
      'one/s/SKILL.md': skillMd('s'),
      'one/s/a.txt': 'alpha',
      'one/s/b.txt': 'bravo',
      'one/s/c.txt': 'charlie',
    })
    const before = await digestOf(join(root, 'one'))
    const past = new Date('2001-02-03T04:05:06Z')
    await utimes(join(root, 'one/s/a.txt'), past, past)
    await utimes(join(root, 'one/s/SKILL.md'), new Date(), new Date())
    expect(await digestOf(join(root, 'one'))).toBe(before)
    // The same files created in the opposite order, in another folder: the same digest.
    await writeTree(join(root, 'two'), {
      's/c.txt': 'charlie',
      's/b.txt': 'bravo',
      's/a.txt': 'alpha',
      's/SKILL.md': skillMd('s'),
    })
    expect(await digestOf(join(root, 'two'))).toBe(before)
  })

  it('change with a changed byte, a rename, an added file (even empty) and a removed file', async () => {
    const root = await tree({
      's/SKILL.md': skillMd('s'),
      's/a.txt': 'alpha',
      's/sub/b.txt': 'bravo',
    })
    const seen = new Set<string>([await digestOf(root)])
    const step = async (change: () => Promise<void>) => {
      await change()
      const d = await digestOf(root)
      expect(seen.has(d)).toBe(false)
      seen.add(d)
    }
    await step(() => writeFile(join(root, 's/a.txt'), 'alphA'))
    await step(() => rename(join(root, 's/a.txt'), join(root, 's/a2.txt')))
    await step(() => writeFile(join(root, 's/new.txt'), 'new'))
    await step(() => writeFile(join(root, 's/empty.txt'), ''))
    await step(() => rm(join(root, 's/sub/b.txt')))
    expect(seen.size).toBe(6)
  })

  it('never let two file sets frame alike (a path/content boundary moved)', async () => {
    const root = await tree({
      'x/s/SKILL.md': skillMd('s'),
      'x/s/ab': 'c',
      'y/s/SKILL.md': skillMd('s'),
      'y/s/a': 'bc',
      'z/s/SKILL.md': skillMd('s'),
      'z/s/a': '',
      'z/s/b': 'c',
    })
    const all = await Promise.all(['x', 'y', 'z'].map((d) => digestOf(join(root, d))))
    expect(new Set(all).size).toBe(3)
  })

  it('with a lock, discovery reads each file once: the SKILL.md bytes it loaded serve the digest', async () => {
    const files = { 'SKILL.md': skillMd('s'), 'a.txt': 'alpha\n', 'b/c.txt': 'gamma\n' }
    const root = await tree(
      Object.fromEntries(Object.entries(files).map(([k, v]) => [`s/${k}`, v])),
    )
    const reads: string[] = []
    const fs: SyncSkillFs = {
      ...syncSkillFs,
      readCapped: (path, ...rest) => {
        reads.push(path.slice(root.length + 1))
        return syncSkillFs.readCapped(path, ...rest)
      },
    }
    const limits = resolveSourceLimits()
    let skillMdBytes: Uint8Array | undefined
    // The same two steps the source runs for a locked skill: load (keeping SKILL.md), then digest.
    const outcome = runSync(
      loadFsSkillSteps(join(root, 's'), 's', {
        limits,
        strict: false,
        onSkillMd: (_dir, bytes) => {
          skillMdBytes = bytes
        },
      }),
      fs,
    )
    expect(outcome.ok).toBe(true)
    if (!outcome.ok || !skillMdBytes) throw new Error('not loaded')
    const known = new Map([['SKILL.md', skillMdBytes]])
    const digest = runSync(skillDigestSteps(outcome.entry.scan, limits.maxFileBytes, known), fs)
    expect(digest).toBe(expected(files))
    expect(reads.sort()).toEqual(['s/SKILL.md', 's/a.txt', 's/b/c.txt'])
  })

  it('refuse a skill with a file over maxFileBytes: its content cannot be read in full', async () => {
    const root = await tree({ 's/SKILL.md': skillMd('s'), 's/big.bin': 'x'.repeat(5000) })
    const source = new FileSystemSkillSource({ roots: root, limits: { maxFileBytes: 4096 } })
    const [skill] = (await discover(source)).skills
    await rejectsWith(source.digest(skill!), 'E_SKILL_SOURCE_TOO_LARGE')
  })
})
