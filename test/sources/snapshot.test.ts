import fs from 'node:fs'
import fsp, { rm, symlink } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import type { SkillRef } from '../../src/sources/types.js'
import { filesFromSource } from '../../src/tiers/scripts/skill-copy/skill-copy-files.js'
import { rejectsWith } from '../helpers/error-code.js'
import { makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

async function firstRef(source: FileSystemSkillSource): Promise<SkillRef> {
  for await (const s of source.discover()) return { id: s.id, version: s.version }
  throw new Error('no skill')
}

/** Runs `fn` while counting every directory listing, sync or async, made through node:fs. */
async function countingReaddirs(fn: () => Promise<void>): Promise<number> {
  let count = 0
  const sync = fs.readdirSync
  const cb = fs.readdir
  const promised = fsp.readdir
  fs.readdirSync = ((...a: Parameters<typeof sync>) => {
    count++
    return sync(...a)
  }) as typeof sync
  fs.readdir = ((...a: Parameters<typeof cb>) => {
    count++
    return (cb as (...x: unknown[]) => void)(...a)
  }) as typeof cb
  fsp.readdir = ((...a: Parameters<typeof promised>) => {
    count++
    return promised(...a)
  }) as typeof promised
  syncBuiltinESMExports()
  try {
    await fn()
  } finally {
    fs.readdirSync = sync
    fs.readdir = cb
    fsp.readdir = promised
    syncBuiltinESMExports()
  }
  return count
}

// Issue 10 item 9: materializing a skill used to rescan its folder per file
// (2,000 files took 102 s under the mutation queue). One snapshot serves all reads.
describe('FileSystemSkillSource.snapshot', () => {
  it('reads every file of a 600-file skill from one scan: directory listings do not grow with the file count', async () => {
    const tree: Record<string, string> = { 's/SKILL.md': skillMd('s') }
    for (let d = 0; d < 6; d++)
      for (let f = 0; f < 100; f++) tree[`s/d${d}/f${f}.txt`] = `${d}/${f}`
    const root = await makeTree(tree)
    roots.push(root)
    const source = new FileSystemSkillSource({ roots: [root] })
    const ref = await firstRef(source)
    let texts: string[] = []
    const listings = await countingReaddirs(async () => {
      const files = await filesFromSource(source, ref)
      texts = await Promise.all(
        files.map(async (f) => new TextDecoder().decode((await f.read()) as Uint8Array)),
      )
    })
    // The 600 files and SKILL.md, which the skill copy carries too.
    expect(texts).toHaveLength(601)
    expect(texts).toContain('5/99')
    // One scan of the folder and its 6 subdirectories; per-file rescans would be ~4,200.
    expect(listings).toBeGreaterThan(0)
    expect(listings).toBeLessThanOrEqual(7)
  })

  it('never returns bytes the snapshot did not validate, and a normal read still works', async () => {
    const root = await makeTree({
      'secret.txt': 'TOP SECRET',
      's/SKILL.md': skillMd('s'),
      's/a.txt': 'alpha',
      's/b.txt': 'bravo',
    })
    roots.push(root)
    const source = new FileSystemSkillSource({ roots: [root] })
    const snap = await source.snapshot(await firstRef(source))
    expect(snap.paths).toEqual(['a.txt', 'b.txt'])
    await rm(join(root, 's/a.txt'))
    await symlink(join(root, 'secret.txt'), join(root, 's/a.txt'))
    await rejectsWith(snap.read('a.txt'), 'E_SKILL_SOURCE_FAILED')
    await rejectsWith(snap.read('SKILL.md'), 'E_SKILL_NOT_FOUND')
    await rejectsWith(snap.read('../secret.txt'), 'E_SKILL_SOURCE_PATH_REJECTED')
    expect(new TextDecoder().decode(await snap.read('b.txt'))).toBe('bravo')
  })

  it('refuses a stale ref like read does', async () => {
    const root = await makeTree({ 's/SKILL.md': skillMd('s'), 's/a.txt': 'alpha' })
    roots.push(root)
    const source = new FileSystemSkillSource({ roots: [root] })
    const ref = await firstRef(source)
    await rejectsWith(source.snapshot({ ...ref, version: 'old' }), 'E_SKILL_NOT_FOUND')
  })
})
