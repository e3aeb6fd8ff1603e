import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openRoot, walkBeneath } from '../../../../src/common/door/beneath.js'
import { diffTrees } from '../../../../src/tiers/scripts/workspace/diff-trees.js'

const base = mkdtempSync(join(tmpdir(), 'skillhost-walk-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

async function walkTree(root: string, maxEntries: number, maxDepth = 256) {
  const handle = await openRoot(root)
  try {
    return await walkBeneath(handle, { maxEntries, maxDepth })
  } finally {
    await handle.close()
  }
}

/** A tree with more files in one folder than one batch of lstat calls, plus nested folders. */
function tree(name: string, files: number): string {
  const root = join(base, name)
  mkdirSync(join(root, 'big'), { recursive: true })
  for (let i = 0; i < files; i++) writeFileSync(join(root, 'big', `f${i}.txt`), 'x'.repeat(i % 7))
  mkdirSync(join(root, 'a/b'), { recursive: true })
  writeFileSync(join(root, 'a/b/deep.txt'), 'deep')
  mkdirSync(join(root, 'node_modules/pkg'), { recursive: true })
  writeFileSync(join(root, 'node_modules/pkg/index.js'), '1')
  symlinkSync('/etc', join(root, 'a/link'))
  return root
}

describe('walkBeneath', () => {
  it('reports every file of a folder larger than one stat batch, with its size, and never follows a symlink', async () => {
    const root = tree('full', 300)
    const { entries, complete } = await walkTree(root, 50_000)
    expect(complete).toBe(true)
    const files = [...entries].filter(([, e]) => e.kind === 'file')
    expect(files).toHaveLength(300 + 2)
    for (let i = 0; i < 300; i++) expect(entries.get(`big/f${i}.txt`)?.size).toBe(i % 7)
    expect(entries.get('a/b/deep.txt')).toMatchObject({ kind: 'file', size: 4 })
    expect(entries.get('a/link')?.kind).toBe('symlink')
    expect([...entries.keys()].some((p) => p.startsWith('a/link/'))).toBe(false)
    // Every byte counts against the cap: tooling folders are walked too.
    expect(entries.get('node_modules')?.kind).toBe('dir')
    expect(entries.get('node_modules/pkg/index.js')).toMatchObject({ kind: 'file', size: 1 })
  })

  it('names FIFOs and sockets by kind without opening them', async () => {
    const root = tree('special', 1)
    execFileSync('mkfifo', [join(root, 'out.txt')])
    const { entries, complete } = await walkTree(root, 50_000)
    expect(complete).toBe(true)
    expect(entries.get('out.txt')?.kind).toBe('fifo')
  })

  it('is incomplete past maxDepth, so a deep tree counts as unmeasured', async () => {
    const root = tree('deep', 1)
    mkdirSync(join(root, 'd1/d2/d3/d4'), { recursive: true })
    writeFileSync(join(root, 'd1/d2/d3/d4/f'), 'x')
    expect((await walkTree(root, 50_000, 3)).complete).toBe(false)
    expect((await walkTree(root, 50_000, 4)).complete).toBe(true)
  })

  it('stops at maxEntries, inside a stat batch, and says the walk is incomplete', async () => {
    const root = tree('capped', 300)
    const { entries, complete } = await walkTree(root, 100)
    expect(complete).toBe(false)
    expect(entries.size).toBe(100)
  })

  it('a rewrite, a new file and a removal show up in the diff of two walks', async () => {
    const root = tree('diff', 150)
    const before = (await walkTree(root, 50_000)).entries
    writeFileSync(join(root, 'big/f70.txt'), 'changed size')
    writeFileSync(join(root, 'big/new.txt'), 'n')
    rmSync(join(root, 'big/f3.txt'))
    const after = (await walkTree(root, 50_000)).entries
    expect(diffTrees(before, after).map((c) => `${c.change} ${c.path}`)).toEqual([
      'deleted big/f3.txt',
      'modified big/f70.txt',
      'created big/new.txt',
    ])
  })
})
