import { type ChildProcess, spawn } from 'node:child_process'
import { readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { FsSkillEntry } from '../../src/sources/discovery/load-fs-skill.js'
import { scanSkillFolder } from '../../src/sources/discovery/scan-skill-folder.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { lockSkills } from '../../src/sources/lock/lock-skills.js'
import { SkillDigests } from '../../src/sources/lock/skill-digests.js'
import { ServedSkills } from '../../src/sources/reading/served-skills.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import type { DiscoveredSkill } from '../../src/sources/types.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'
import { rewriteKeepingIdentity } from '../helpers/same-identity-rewrite.js'
import { discover, makeTree, removeTree, skillMd, text } from '../helpers/skill-tree.js'
import { ATTEMPTS } from '../helpers/swapper.js'

// Hole 3 of issue 35: a long-lived locked source kept the digest it took for
// a scan identity (path, size, mtime, inode). A rewrite in place that keeps
// the length, with the mtime put back by utimes, keeps that identity, so the
// next load handed out (and tier 3 ran) bytes nobody pinned. Each attack
// below rewrites a file so that size, inode and mtime are exactly as pinned
// (asserted), and no changed byte may come out of the source.

const PINNED_SH = 'echo pinned-run\n'
const CHANGED_SH = 'echo CHANGED-!!\n'
/** A whole second, which utimes restores exactly (a Date from a stat would lose nanoseconds). */
const T0 = new Date('2020-01-01T00:00:00Z')

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

async function lockedSkill(): Promise<{
  root: string
  source: FileSystemSkillSource
  ref: DiscoveredSkill
}> {
  const root = await makeTree({
    'beta/SKILL.md': skillMd('beta', 'The beta skill.', '', '# Beta\n\nPinned body.\n'),
    'beta/scripts/run.sh': PINNED_SH,
    'beta/skillhost.yaml': 'isolatedTools:\n  - { name: t, description: T., source: tools/t.js }\n',
    'beta/tools/t.js': 'async () => "pinned"\n',
  })
  roots.push(root)
  for (const rel of ['SKILL.md', 'scripts/run.sh', 'skillhost.yaml', 'tools/t.js'])
    await utimes(join(root, 'beta', rel), T0, T0)
  const lock = await lockSkills(new FileSystemSkillSource({ roots: root }))
  const source = new FileSystemSkillSource({ roots: root, lock })
  const [ref] = (await discover(source)).skills
  if (!ref) throw new Error('beta was not served')
  return { root, source, ref }
}

async function snapshotText(source: FileSystemSkillSource, ref: DiscoveredSkill, rel: string) {
  return new TextDecoder().decode(await (await source.snapshot(ref)).read(rel))
}

describe('a locked source never hands out bytes a same-identity rewrite put there', () => {
  it('refuses the rewritten script through snapshot (what tier 3 copies) and read; the pinned bytes, put back, load again', async () => {
    const { root, source, ref } = await lockedSkill()
    expect(await snapshotText(source, ref, 'scripts/run.sh')).toBe(PINNED_SH)
    const file = join(root, 'beta/scripts/run.sh')
    await rewriteKeepingIdentity(file, CHANGED_SH, T0)
    const refused = await rejectsWith(
      () => snapshotText(source, ref, 'scripts/run.sh'),
      'E_SKILL_NOT_PINNED',
    )
    expect(refused.data).toMatchObject({ id: 'beta' })
    expect(refused.message).not.toContain(root)
    expect(await codeOf(async () => text(await source.read(ref, 'scripts/run.sh')))).toBe(
      'E_SKILL_NOT_PINNED',
    )
    // The catalog says so: the kept digest was not trusted for the moved ctime.
    const listed = await discover(source)
    expect(listed.skills.map((s) => s.pin?.state)).toEqual(['changed-since-pinned'])
    // Hardening never refuses the legitimate: the pinned bytes back, the same source serves them.
    await rewriteKeepingIdentity(file, PINNED_SH, T0)
    const [again] = (await discover(source)).skills
    expect(again?.pin?.state).toBe('pinned')
    expect(await snapshotText(source, again!, 'scripts/run.sh')).toBe(PINNED_SH)
  })

  it('refuses a rewritten SKILL.md body (read and stat), and an isolated tool source (descriptor)', async () => {
    const { root, source, ref } = await lockedSkill()
    expect(await text(await source.read(ref))).toContain('Pinned body.')
    await rewriteKeepingIdentity(
      join(root, 'beta/SKILL.md'),
      skillMd('beta', 'The beta skill.', '', '# Beta\n\nEvil! body.\n'),
      T0,
    )
    expect(await codeOf(async () => text(await source.read(ref)))).toBe('E_SKILL_NOT_PINNED')
    expect(await codeOf(() => source.stat(ref))).toBe('E_SKILL_NOT_PINNED')
    await rewriteKeepingIdentity(join(root, 'beta/tools/t.js'), 'async () => "evil!"\n', T0)
    expect(await codeOf(() => source.descriptor(ref))).toBe('E_SKILL_NOT_PINNED')
  })

  it('a fresh discovery of a long-lived source, before any load, lists the rewrite as changed-since-pinned', async () => {
    const { root, source } = await lockedSkill()
    await rewriteKeepingIdentity(join(root, 'beta/scripts/run.sh'), CHANGED_SH, T0)
    const again = await discover(source)
    expect(again.skills.map((s) => s.pin?.state)).toEqual(['changed-since-pinned'])
    expect(await codeOf(() => snapshotText(source, again.skills[0]!, 'scripts/run.sh'))).toBe(
      'E_SKILL_NOT_PINNED',
    )
  })

  it('a rewrite between discovery and the first load (kept digest, no read yet) loads nothing changed through a manager', async () => {
    const { root, source } = await lockedSkill()
    await using manager = await createSkillManager({ sources: [source], gate: async () => {} })
    expect(manager.catalog().entries.map((e) => e.pin?.state)).toEqual(['pinned'])
    await rewriteKeepingIdentity(join(root, 'beta/tools/t.js'), 'async () => "evil!"\n', T0)
    const error = await rejectsWith(
      manager.load('beta', manager.createTurnContext()),
      'E_SKILL_NOT_PINNED',
    )
    expect(error.data?.id).toBe('beta')
  })

  it('holds every read to the pinned hashes even when the scan cannot tell (a rewrite within one tick of a coarse clock)', async () => {
    // On a filesystem whose clock ticks in milliseconds two writes can share a
    // ctime, so scan and kept digest agree while the bytes differ. That state
    // is made here directly: hashes taken before the rewrite, a scan after it.
    const { root } = await lockedSkill()
    const dir = join(root, 'beta')
    const limits = resolveSourceLimits()
    const digests = new SkillDigests(limits.maxFileBytes)
    const { files: pinned } = await digests.fileDigests(dir, await scanSkillFolder(dir, limits))
    await rewriteKeepingIdentity(join(dir, 'scripts/run.sh'), CHANGED_SH, T0)
    const scan = await scanSkillFolder(dir, limits)
    let invalidated = 0
    const served = new ServedSkills({
      limits,
      overlays: [],
      cache: {
        invalidate: () => {
          invalidated += 1
        },
      },
      pins: undefined,
      digests,
    })
    const entry = { dir, manifest: { name: 'beta' }, version: 'v' } as unknown as FsSkillEntry
    const error = await rejectsWith(
      served.read({ entry, scan, pinned }, 'scripts/run.sh', limits.maxFileBytes),
      'E_SKILL_NOT_PINNED',
    )
    expect(error.data).toEqual({ id: 'beta', reason: 'changed', path: 'scripts/run.sh' })
    // The kept digest is dropped and the folder read again by the next walk.
    expect(digests.size).toBe(0)
    expect(invalidated).toBe(1)
    // A file whose bytes are the pinned ones reads as always.
    const body = await served.read({ entry, scan, pinned }, 'SKILL.md', limits.maxFileBytes)
    expect(new TextDecoder().decode(body)).toContain('Pinned body.')
    // Without a lock nothing is hashed: the bytes are what the folder holds.
    const unlocked = await served.read({ entry, scan }, 'scripts/run.sh', limits.maxFileBytes)
    expect(new TextDecoder().decode(unlocked)).toBe(CHANGED_SH)
  })

  it(`races a writer flipping the script in place, mtime restored each time: no changed byte is read (${ATTEMPTS} reads)`, async () => {
    const { root, source } = await lockedSkill()
    const stop = await startFlipper(root, join(root, 'beta/scripts/run.sh'))
    let served = 0
    let refused = 0
    let wins = 0
    try {
      for (let i = 0; i < ATTEMPTS; i++) {
        try {
          // A fresh discovery each time, as a rediscovery after each watch event would.
          const [now] = (await discover(source)).skills
          if (now?.pin?.state !== 'pinned') {
            refused += 1
            continue
          }
          const got = await snapshotText(source, now, 'scripts/run.sh')
          if (got === PINNED_SH) served += 1
          else wins += 1
        } catch (err) {
          // Refused as not pinned, or as changed since the scan when a flip lands mid-read.
          if (!SkillHostError.isInstance(err)) throw err
          refused += 1
        }
      }
    } finally {
      const flips = await stop()
      console.log(
        `lock-same-identity race: ${ATTEMPTS} reads, ${served} pinned, ${refused} refused, ${wins} changed; ${flips} flips`,
      )
      expect(flips).toBeGreaterThan(0)
    }
    expect(wins).toBe(0)
    expect(served + refused).toBe(ATTEMPTS)
    // The writer was met: the race raced.
    expect(refused).toBeGreaterThan(0)
    expect((await readdir(join(root, 'beta/scripts'))).sort()).toEqual(['run.sh'])
  })
})

/** A writer in another process that rewrites `file` in place between the pinned and changed bytes, restoring its mtime each time. */
async function startFlipper(base: string, file: string): Promise<() => Promise<number>> {
  const script = join(base, 'flipper.cjs')
  await writeFile(
    script,
    `const fs = require('node:fs')
const [file, a, b, t] = process.argv.slice(2)
const when = new Date(Number(t))
let flips = 0
process.on('SIGTERM', () => { fs.writeFileSync(file, a); fs.utimesSync(file, when, when); process.stdout.write(String(flips)); process.exit(0) })
process.stdout.write('ready\\n')
// A flip there and back every 5 ms: often enough to land inside loads, rarely enough that loads also land between.
function batch() {
  for (let i = 0; i < 2; i++) {
    const fd = fs.openSync(file, 'r+')
    fs.writeSync(fd, flips % 2 === 0 ? b : a, 0)
    fs.closeSync(fd)
    fs.utimesSync(file, when, when)
    flips++
  }
  setTimeout(batch, 5)
}
batch()
`,
  )
  const child: ChildProcess = spawn(
    process.execPath,
    [script, file, PINNED_SH, CHANGED_SH, String(T0.getTime())],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString()
      if (out.includes('ready')) resolve()
    })
    child.once('exit', () => reject(new Error('flipper exited early')))
  })
  return () =>
    new Promise<number>((resolve) => {
      child.once('exit', () => resolve(Number(out.replace('ready\n', '')) || 0))
      child.kill('SIGTERM')
    })
}
