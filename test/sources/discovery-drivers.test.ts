import { execFileSync } from 'node:child_process'
import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  allSteps,
  type FsSteps,
  runAsync,
  runSync,
  statStep,
} from '../../src/sources/discovery/fs-steps.js'
import {
  asyncSkillFs,
  type SkillFs,
  type SyncSkillFs,
  syncSkillFs,
} from '../../src/sources/discovery/skill-fs.js'
import { type DiscoveryIo, walkSkillRoots } from '../../src/sources/discovery/walk-skill-roots.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import type { SkillProblem } from '../../src/sources/types.js'
import { discover, makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** The direct calls, with every listing in a seeded random order. */
function shuffledSyncFs(seed: number): SyncSkillFs {
  const next = random(seed)
  return {
    ...syncSkillFs,
    readdir: (path) => shuffled(syncSkillFs.readdir(path), next),
    readdirChecked: (path, real) => {
      const entries = syncSkillFs.readdirChecked(path, real)
      return entries && shuffled(entries, next)
    },
  }
}

/**
 * The thread-pool calls, with every listing shuffled and every call answered
 * after a random delay, so concurrent calls complete in a random order.
 */
function shuffledAsyncFs(seed: number): SkillFs {
  const next = random(seed)
  const later = <T>(call: () => Promise<T>): Promise<T> =>
    new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 3))).then(call)
  return {
    readdir: (path) => later(() => asyncSkillFs.readdir(path)).then((e) => shuffled(e, next)),
    readdirChecked: (path, real) =>
      later(() => asyncSkillFs.readdirChecked(path, real)).then((e) => e && shuffled(e, next)),
    statChecked: (path, real, names) => later(() => asyncSkillFs.statChecked(path, real, names)),
    stat: (path) => later(() => asyncSkillFs.stat(path)),
    realpath: (path) => later(() => asyncSkillFs.realpath(path)),
    resolve: (path) => later(() => asyncSkillFs.resolve(path)),
    readCapped: (...args) => later(() => asyncSkillFs.readCapped(...args)),
  }
}

/** Everything a walk hands on, in order: each folder's verdict, and the problems it reported. */
async function walk(root: string, io: DiscoveryIo, strict: boolean) {
  const problems: SkillProblem[] = []
  const folders: unknown[] = []
  const limits = resolveSourceLimits({ maxDepth: 3, concurrency: 4 })
  for await (const batch of walkSkillRoots([root], {
    limits,
    strict,
    // Overlays live in a folder of the tree without a SKILL.md: the walk passes through it.
    overlays: [join(root, 'overlays')],
    io,
    report: (p) => problems.push(p),
  })) {
    for (const { location, hostPath, outcome } of batch) {
      folders.push(
        outcome.ok
          ? {
              location,
              hostPath,
              id: outcome.entry.manifest.name,
              version: outcome.entry.version,
              warnings: outcome.entry.warnings,
              files: [...outcome.entry.scan.files].map(([rel, f]) => [
                rel,
                f.target,
                f.size,
                f.ino,
              ]),
            }
          : { location, hostPath, code: outcome.code, errors: outcome.errors },
      )
    }
  }
  return { folders, problems }
}

/** A tree with something of every kind: good, bad, nested, linked in and out, too deep. */
async function badTree(): Promise<string> {
  const root = await makeTree({
    'good/SKILL.md': skillMd('good', 'Good.', 'metadata:\n  n: 1\n'),
    'good/a.txt': 'a',
    'good/b/c.txt': 'c',
    'good/b/d/e.txt': 'e',
    'good/b/d/f/g/too-deep.txt': 'g',
    'good/z/y.txt': 'y',
    'crlf/SKILL.md': skillMd('crlf').replace(/\n/g, '\r\n'),
    'nofm/SKILL.md': '# no frontmatter\n',
    'badutf/SKILL.md': new Uint8Array([...new TextEncoder().encode(skillMd('badutf')), 0xff]),
    'deep/a/b/c/d/SKILL.md': skillMd('d'),
    'mid/a/SKILL.md': skillMd('mid-a'),
    'mid/b/SKILL.md': skillMd('mid-b'),
    'nest/SKILL.md': skillMd('nest'),
    'nest/sub/x.txt': 'x',
    'nest/inner/SKILL.md': skillMd('inner'),
    'nest/.git/HEAD': 'ref',
    'nest/node_modules/m/index.js': '',
    'dup/SKILL.md': skillMd('good'),
    'side/SKILL.md': skillMd('side'),
    'side/skillhost.yaml': 'scripts:\n  - name: run\n    path: missing.sh\n',
    'tools/SKILL.md': skillMd('tools'),
    'tools/skillhost.yaml': 'scripts:\n  - name: run\n    path: run.sh\n',
    'tools/run.sh': 'echo hi\n',
    // Overlays: one replacing a valid sidecar, one fixing a broken one, one broken.
    'overlays/tools/skillhost.yaml': 'scripts: []\n',
    'overlays/side/skillhost.yaml': '',
    'overlays/nest/skillhost.yaml': 'scripts: 3\n',
    'outside.md': skillMd('esc'),
    'secret.txt': 's',
    'esc/.keep': '',
    'leaky/SKILL.md': skillMd('leaky'),
    'leaky/inside.txt': 'in',
    'leaky/sub/.keep': '',
    'loop/.keep': '',
  })
  roots.push(root)
  await symlink(join(root, 'outside.md'), join(root, 'esc/SKILL.md'))
  for (const name of ['leak1.txt', 'leak2.txt', 'leak3.txt'])
    await symlink(join(root, 'secret.txt'), join(root, 'leaky', name))
  await symlink(join(root, 'leaky'), join(root, 'leaky/self'))
  await symlink(join(root, 'leaky/sub'), join(root, 'leaky/subdir-link'))
  await symlink(join(root, 'leaky/inside.txt'), join(root, 'leaky/alias.txt'))
  await symlink(join(root, 'nowhere'), join(root, 'leaky/dangling'))
  await symlink(join(root, 'leaky/loop-b'), join(root, 'leaky/loop-a'))
  await symlink(join(root, 'leaky/loop-a'), join(root, 'leaky/loop-b'))
  await symlink(join(root, 'loop/SKILL.md'), join(root, 'loop/SKILL.md'))
  await symlink(root, join(root, 'up'))
  await symlink(join(root, 'mid'), join(root, 'mid-link'))
  await symlink(join(root, 'nest'), join(root, 'mid/c'))
  // Symlinked folders out of the root: a skill, a collection (twice), one leading nowhere.
  const outside = await makeTree({
    'ext/SKILL.md': skillMd('ext'),
    'ext/e.txt': 'e',
    'coll/x/SKILL.md': skillMd('x'),
    'coll/y/z/SKILL.md': skillMd('z'),
  })
  roots.push(outside)
  await symlink(join(outside, 'ext'), join(root, 'ext-link'))
  await symlink(join(outside, 'coll'), join(root, 'coll-link'))
  await symlink(join(outside, 'coll'), join(root, 'coll-again'))
  await symlink(join(outside, 'coll/y'), join(root, 'mid/y-link'))
  await symlink(root, join(outside, 'coll/y/back'))
  await symlink(join(root, 'nowhere'), join(root, 'dangling'))
  try {
    execFileSync('mkfifo', [join(root, 'leaky/pipe')])
  } catch {
    // No mkfifo here: the tree is still varied enough.
  }
  return root
}

describe('the sync and async drivers run the same discovery steps', () => {
  it('yield the same skills, versions and problems in the same order, whatever readdir returns', async () => {
    const root = await badTree()
    for (const strict of [false, true]) {
      const expected = await walk(root, { sync: syncSkillFs }, strict)
      expect(expected.folders.length).toBeGreaterThan(10)
      expect(expected.problems.length).toBeGreaterThanOrEqual(3)
      // Followed links, loops, repeats, nesting and the depth cut are all there.
      const ids = JSON.stringify(expected.folders)
      for (const id of ['"id":"ext"', '"id":"x"', '"id":"z"']) expect(ids).toContain(id)
      const said = expected.problems.map((p) => `${p.code} ${p.message}`).join('\n')
      for (const kind of [
        'E_SKILL_NOT_SEARCHED The folder holds a SKILL.md inside the skill folder nest',
        'E_SKILL_NOT_SEARCHED The folder is below the search depth',
        'a loop',
        'already searched',
        'inside this root',
        'leads nowhere',
      ])
        expect(said).toContain(kind)
      if (!strict) {
        // Every kind of scan warning is there to be put in order.
        const seen = JSON.stringify(expected.folders)
        for (const kind of [
          'leads outside',
          'broken or looping',
          'to a folder',
          'too deep',
          'overlay skillhost.yaml replaces it',
          'overlay skillhost.yaml is invalid',
        ])
          expect(seen).toContain(kind)
      }
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        expect(await walk(root, { sync: shuffledSyncFs(seed) }, strict)).toEqual(expected)
        expect(await walk(root, { async: shuffledAsyncFs(seed) }, strict)).toEqual(expected)
      }
    }
  })

  it('both discovery modes of FileSystemSkillSource agree', async () => {
    const root = await badTree()
    for (const strict of [false, true]) {
      const viaSync = await discover(
        new FileSystemSkillSource({
          roots: root,
          strict,
          overlays: join(root, 'overlays'),
          discoveryIo: 'sync',
        }),
      )
      const viaAsync = await discover(
        new FileSystemSkillSource({
          roots: root,
          strict,
          overlays: join(root, 'overlays'),
          discoveryIo: 'async',
        }),
      )
      expect(viaSync.skills.length).toBeGreaterThan(2)
      expect(viaSync.problems.length).toBeGreaterThan(5)
      expect(viaAsync).toEqual(viaSync)
    }
  })

  it('an `all` request answers in input order and fails with the first failure in input order', async () => {
    const root = await makeTree({ 'a.txt': 'a', 'bb.txt': 'bb' })
    roots.push(root)
    function* sizes(): FsSteps<number[]> {
      const stats = yield* allSteps(['a.txt', 'bb.txt'].map((n) => statStep(join(root, n))))
      return stats.map((s) => s.size)
    }
    function* failing(): FsSteps<string> {
      try {
        yield* allSteps(['gone-1', 'a.txt', 'gone-2'].map((n) => statStep(join(root, n))))
        return 'no failure'
      } catch (err) {
        return String((err as NodeJS.ErrnoException).path)
      }
    }
    // The first missing file is answered last, so completion order differs from input order.
    const slowFirst: SkillFs = {
      ...asyncSkillFs,
      stat: (path) =>
        new Promise((r) => setTimeout(r, path.endsWith('gone-1') ? 20 : 0)).then(() =>
          asyncSkillFs.stat(path),
        ),
    }
    expect(runSync(sizes(), syncSkillFs)).toEqual([1, 2])
    expect(await runAsync(sizes(), slowFirst)).toEqual([1, 2])
    expect(runSync(failing(), syncSkillFs)).toBe(join(root, 'gone-1'))
    expect(await runAsync(failing(), slowFirst)).toBe(join(root, 'gone-1'))
  })
})
