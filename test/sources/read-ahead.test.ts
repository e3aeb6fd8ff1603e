import { mkdir, rename, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  currentResourceTracker,
  ResourceTracker,
  setResourceTracker,
  type TrackedResource,
  type Untrack,
} from '../../src/common/leak-tracker.js'
import { type ReadAhead, startReadAhead } from '../../src/sources/discovery/read-ahead.js'
import { type DirEntry, syncSkillFs } from '../../src/sources/discovery/skill-fs.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { discover, skillMd, treesRemovedAfterEach } from '../helpers/skill-tree.js'

const tree = treesRemovedAfterEach()

/** What discovery reads of a listing, in name order. */
const seen = (entries: readonly DirEntry[]) =>
  entries
    .map(
      (e) =>
        `${e.name}:${e.isFile() ? 'f' : ''}${e.isDirectory() ? 'd' : ''}${e.isSymbolicLink() ? 'l' : ''}`,
    )
    .sort()

/** Turns of the event loop until `ready()`, at most `turns` of 5 ms: the worker runs on its own thread. */
async function until(ready: () => boolean, turns = 2_000): Promise<boolean> {
  for (let i = 0; i < turns && !ready(); i++) await new Promise((r) => setTimeout(r, 5))
  return ready()
}

/** Waits until the worker has posted `least` listings and its count holds still over 20 turns (waiting for room, or done). */
async function settled(ahead: ReadAhead, least = 1): Promise<number> {
  await until(() => ahead.counts.listed >= least)
  let last = -1
  let still = 0
  for (let i = 0; i < 2_000 && still < 20; i++) {
    const now = ahead.counts.listed
    still = now === last ? still + 1 : 0
    last = now
    await new Promise((r) => setTimeout(r, 5))
  }
  return last
}

/** `count` folders named `d0000`..., each with a file; some are skill folders with a subfolder. */
function folders(count: number, skillEvery = 0): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++) {
    const name = `d${String(i).padStart(4, '0')}`
    files[`${name}/f.txt`] = String(i)
    if (skillEvery > 0 && i % skillEvery === 0) {
      files[`${name}/SKILL.md`] = skillMd(name)
      files[`${name}/sub/inner/g.txt`] = 'g'
    }
  }
  return files
}

describe('read-ahead: the walk takes listings a worker made', () => {
  it('answers each hinted folder, and the subfolders of a skill folder, with what readdir gives', async () => {
    const root = await tree(folders(120, 3))
    await symlink(join(root, 'd0001'), join(root, 'd0000', 'link'))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6 })
    try {
      const dirs = Array.from({ length: 120 }, (_, i) =>
        join(root, `d${String(i).padStart(4, '0')}`),
      )
      ahead.hint(dirs)
      expect(await until(() => ahead.counts.listed > 0)).toBe(true)
      let expected = 0
      for (const [i, dir] of dirs.entries()) {
        expect(seen(ahead.fs.readdir(dir))).toEqual(seen(syncSkillFs.readdir(dir)))
        expected++
        if (i % 3 !== 0) continue
        // The skill's scan lists these next: read ahead with it.
        const real = syncSkillFs.realpath(dir)
        for (const sub of ['sub', 'sub/inner']) {
          expect(seen(ahead.fs.readdirChecked(join(dir, sub), join(real, sub))!)).toEqual(
            seen(syncSkillFs.readdir(join(dir, sub))),
          )
          expected++
        }
      }
      expect(ahead.counts).toMatchObject({ hits: expected, misses: 0, dropped: 0 })
    } finally {
      ahead.close()
    }
  })

  it('a folder that failed ahead is listed by the walk, as it stands then', async () => {
    const root = await tree({ 'a/x': '', 'c/y': '' })
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6 })
    try {
      ahead.hint(['a', 'b', 'c', 'gone'].map((n) => join(root, n)))
      expect(await until(() => ahead.counts.listed >= 4)).toBe(true)
      // `b` was missing when the worker listed it; it is there when the walk asks.
      await mkdir(join(root, 'b'))
      await writeFile(join(root, 'b', 'new.txt'), 'n')
      expect(seen(ahead.fs.readdir(join(root, 'a')))).toEqual(['x:f'])
      expect(seen(ahead.fs.readdir(join(root, 'b')))).toEqual(['new.txt:f'])
      expect(seen(ahead.fs.readdir(join(root, 'c')))).toEqual(['y:f'])
      // Still missing: the walk gets the error its own readdir gives.
      let code: unknown
      try {
        ahead.fs.readdir(join(root, 'gone'))
      } catch (err) {
        code = (err as NodeJS.ErrnoException).code
      }
      expect(code).toBe('ENOENT')
      expect(ahead.counts).toMatchObject({ hits: 2, misses: 2 })
    } finally {
      ahead.close()
    }
  })

  it('holds at most a window of listings the walk has not taken, and goes on as it takes them', async () => {
    const root = await tree(folders(600))
    const dirs = Array.from({ length: 600 }, (_, i) => join(root, `d${String(i).padStart(4, '0')}`))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6, window: 40, maxBelow: 0 })
    try {
      ahead.hint(dirs)
      const held = await settled(ahead)
      expect(held).toBeGreaterThan(0)
      expect(held).toBeLessThanOrEqual(40)
      for (const dir of dirs) expect(seen(ahead.fs.readdir(dir))).toEqual(['f.txt:f'])
      // Past the window the walk waits for the worker rather than list behind it.
      expect(ahead.counts).toMatchObject({ hits: 600, misses: 0 })
    } finally {
      ahead.close()
    }
  })

  it('drops what the walk went past, so skipped folders never stall the worker', async () => {
    const root = await tree(folders(400))
    const dirs = Array.from({ length: 400 }, (_, i) => join(root, `d${String(i).padStart(4, '0')}`))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6, window: 16, maxBelow: 0 })
    try {
      ahead.hint(dirs)
      expect(await until(() => ahead.counts.listed > 0)).toBe(true)
      // Every 10th folder only: the 9 between are never asked for.
      for (let i = 0; i < 400; i += 10)
        expect(seen(ahead.fs.readdir(dirs[i]!))).toEqual(['f.txt:f'])
      const counts = ahead.counts
      expect(counts.hits).toBe(40)
      expect(counts.misses).toBe(0)
      expect(counts.dropped).toBeGreaterThan(0)
    } finally {
      ahead.close()
    }
  })

  it('lists no symlinked folder, no .git or node_modules, and at most maxBelow folders below a skill', async () => {
    const outside = await tree(folders(30))
    const root = await tree({
      'skill/SKILL.md': skillMd('skill'),
      'skill/a/b/c.txt': 'c',
      'skill/.git/objects/o': 'o',
      'skill/node_modules/m/i.js': '',
      'big/SKILL.md': skillMd('big'),
      ...Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`big/s${String(i).padStart(2, '0')}/t.txt`, 't']),
      ),
    })
    await symlink(outside, join(root, 'skill', 'out'))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6, maxBelow: 8 })
    try {
      ahead.hint([join(root, 'skill')])
      // skill, skill/a, skill/a/b: the link, .git and node_modules are not listed.
      expect(await settled(ahead, 3)).toBe(3)
      ahead.hint([join(root, 'big')])
      expect(await settled(ahead, 3 + 1 + 8)).toBe(3 + 1 + 8)
      // The walk lists the rest itself, with the same answers.
      expect(seen(ahead.fs.readdir(join(root, 'skill')))).toContain('out:l')
      ahead.fs.readdir(join(root, 'big'))
      const real = syncSkillFs.realpath(join(root, 'big'))
      for (let i = 0; i < 50; i++) {
        const name = `s${String(i).padStart(2, '0')}`
        const sub = join(root, 'big', name)
        expect(seen(ahead.fs.readdirChecked(sub, join(real, name))!)).toEqual(['t.txt:f'])
      }
      expect(ahead.counts).toMatchObject({ hits: 2 + 8, misses: 42 })
    } finally {
      ahead.close()
    }
  })

  it('answers a subfolder only to a scan expecting the canonical path the worker checked', async () => {
    const outside = await tree({ 'canary.txt': 'secret' })
    const root = await tree({
      'skill/SKILL.md': skillMd('skill'),
      'skill/sub/a.txt': 'a',
      'skill/gone/b.txt': 'b',
    })
    // Swapped before the walk lists the skill: the worker lists the skill and `sub`, not the link.
    await rename(join(root, 'skill', 'gone'), join(root, 'gone-moved'))
    await symlink(outside, join(root, 'skill', 'gone'))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6 })
    try {
      ahead.hint([join(root, 'skill')])
      expect(await settled(ahead, 2)).toBe(2)
      ahead.fs.readdir(join(root, 'skill'))
      const real = syncSkillFs.realpath(join(root, 'skill'))
      // A scan expecting another place is not given the worker's listing; its own check refuses.
      expect(ahead.fs.readdirChecked(join(root, 'skill', 'sub'), join(outside, 'sub'))).toBe(
        undefined,
      )
      expect(ahead.fs.readdirChecked(join(root, 'skill', 'gone'), join(real, 'gone'))).toBe(
        undefined,
      )
      expect(ahead.counts).toMatchObject({ hits: 1, misses: 2 })
    } finally {
      ahead.close()
    }
  })

  it('after close the walk goes on by itself, with the same answers', async () => {
    const root = await tree(folders(100))
    const dirs = Array.from({ length: 100 }, (_, i) => join(root, `d${String(i).padStart(4, '0')}`))
    const ahead = startReadAhead(syncSkillFs, { maxDepth: 6 })
    ahead.hint(dirs)
    expect(await until(() => ahead.counts.listed > 0)).toBe(true)
    for (const dir of dirs.slice(0, 10)) expect(seen(ahead.fs.readdir(dir))).toEqual(['f.txt:f'])
    ahead.close()
    ahead.close()
    for (const dir of dirs.slice(10)) expect(seen(ahead.fs.readdir(dir))).toEqual(['f.txt:f'])
    expect(ahead.counts).toMatchObject({ hits: 10, misses: 90 })
  })
})

/** Counts the read-ahead workers started while `fn` runs (the file's leak check still sees each). */
async function workersStarted<T>(fn: () => Promise<T>): Promise<{ started: number; result: T }> {
  const inner = currentResourceTracker()!
  let started = 0
  class Counting extends ResourceTracker {
    override add(resource: TrackedResource): Untrack {
      if (resource.kind === 'worker' && resource.label === 'discovery read-ahead worker') started++
      return inner.add(resource)
    }
  }
  setResourceTracker(new Counting(inner.scope))
  try {
    const result = await fn()
    return { started, result }
  } finally {
    setResourceTracker(inner)
  }
}

describe('read-ahead: when discovery uses it', () => {
  it('a walk past its first time slice starts one when asked; small walks, the default, watches and the thread pool never do; all find the same', async () => {
    const small = await tree(folders(3, 1))
    const big = await tree(folders(1_200, 2))
    const run = (
      roots: string,
      options: Partial<ConstructorParameters<typeof FileSystemSkillSource>[0]> = {},
    ) =>
      workersStarted(async () => {
        const source = new FileSystemSkillSource({ roots, ...options })
        try {
          return await discover(source)
        } finally {
          source.close()
        }
      })
    const ahead = await run(big, { readAhead: true })
    expect(ahead.started).toBe(1)
    expect(ahead.result.skills).toHaveLength(600)
    expect((await run(small, { readAhead: true })).started).toBe(0)
    for (const options of [
      {},
      { readAhead: true, watch: true },
      { readAhead: true, discoveryIo: 'async' as const },
    ]) {
      const other = await run(big, options)
      expect(other.started).toBe(0)
      expect(other.result).toEqual(ahead.result)
    }
  })
})
