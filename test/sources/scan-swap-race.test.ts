import { spawnSync } from 'node:child_process'
import { readdirSync, readlinkSync, statSync } from 'node:fs'
import { mkdir, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runAsync, runSync } from '../../src/sources/discovery/fs-steps.js'
import {
  type SkillFileEntry,
  type SkillFolderScan,
  scanSkillFolderSteps,
} from '../../src/sources/discovery/scan-skill-folder.js'
import { asyncSkillFs, syncSkillFs } from '../../src/sources/discovery/skill-fs.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { startPlacer } from '../helpers/placer.js'
import { skillMd, treesRemovedAfterEach } from '../helpers/skill-tree.js'
import { ATTEMPTS } from '../helpers/swapper.js'

// The attack: someone who can write a shared skills tree swaps a skill's
// subfolder (or one of its parents) for something else while discovery
// scans the skill, between the parent's listing (which said "folder") and
// the subfolder's own listing. A win is any canary file (outside the skill)
// in a scan's file list: its identity would then pass every later read.
// Each test counts the scans the swap landed in (the attempts that count):
// the scan's warning that the folder changed, or (before the fix) a canary.

const tree = treesRemovedAfterEach()
const limits = resolveSourceLimits({})
/** The warnings a landed swap gives: a folder that changed, or a link that now leads outside. */
const CHANGED =
  / changed while it was scanned; not searched$| leads outside the skill folder; ignored$/

/** Top-level files: the scan stats them between the skill's listing and its subfolders', widening the window. */
function skillTree(extra: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = { 'skill/SKILL.md': skillMd('skill'), ...extra }
  for (let i = 0; i < 48; i++) files[`skill/f${String(i).padStart(2, '0')}.txt`] = 'f'
  return files
}

interface Tally {
  scans: number
  /** Scans the swap landed in: a changed-folder warning, or a canary listed. */
  landed: number
  /** Scans that failed because the folder was missing mid-swap (ENOENT). */
  missing: number
  /** File paths that came from where the scan must not go. */
  wins: string[]
  /** Descriptors open after the scans less those open before: 0 when each is closed. */
  leakedFds?: number
}

/**
 * How many of this process's descriptors are open on `skill`'s parent folder
 * or below it: only what a scan opens (a worker thread's own descriptors are
 * not counted, whenever it starts).
 */
function openBelow(skill: string): number {
  const base = dirname(skill)
  let open = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(base)) open++
    } catch {
      // Closed while listed: not open.
    }
  }
  return open
}

/**
 * Scans `skill` `rounds` times with each driver (sync and thread pool)
 * while a racer runs.
 * `won` tells a file the scan must never list. Only ENOENT (the folder
 * mid-rename) may fail a scan.
 */
async function scanWhileRacing(
  skill: string,
  rounds: number,
  won: (rel: string, file: SkillFileEntry) => boolean,
): Promise<Tally> {
  const tally: Tally = { scans: 0, landed: 0, missing: 0, wins: [] }
  const count = (scan: SkillFolderScan): void => {
    tally.scans++
    const wins = [...scan.files].filter(([rel, file]) => won(rel, file)).map(([rel]) => rel)
    tally.wins.push(...wins)
    if (wins.length > 0 || scan.warnings.some((w) => CHANGED.test(w))) tally.landed++
  }
  const attempt = async (scan: () => SkillFolderScan | Promise<SkillFolderScan>) => {
    try {
      count(await scan())
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      tally.scans++
      tally.missing++
    }
  }
  // Every descriptor a checked listing opens is closed on every path, refusals and throws included.
  const openBefore = openBelow(skill)
  // `rounds` rounds, and more (up to ten times as many) until the swap has landed 5 times.
  for (let i = 0; i < rounds * 10 && (i < rounds || tally.landed < 5); i++) {
    await attempt(() => runSync(scanSkillFolderSteps(skill, limits), syncSkillFs))
    await attempt(() => runAsync(scanSkillFolderSteps(skill, limits), asyncSkillFs))
  }
  tally.leakedFds = openBelow(skill) - openBefore
  return tally
}

/** Races `live` against `thing` and returns the tally, the placer's swap count beside it. */
async function race(
  base: string,
  live: string,
  thing: string,
  won: (rel: string, file: SkillFileEntry) => boolean,
) {
  const placer = await startPlacer(base, live, thing)
  let tally: Tally | undefined
  try {
    tally = await scanWhileRacing(join(base, 'skill'), ATTEMPTS, won)
    expect(tally.leakedFds).toBe(0)
  } finally {
    const swaps = await placer.stop()
    // Kept for the report: how often the racer swapped and how often it landed.
    console.info(`swaps ${swaps}; ${JSON.stringify({ ...tally, wins: tally?.wins.length })}`)
  }
  return tally
}

const isCanary = (rel: string): boolean => rel.includes('canary')

describe('a skill scan racing a writer who swaps its folders', () => {
  it('never lists or stats a subfolder swapped for a symlink to an outside folder', async () => {
    const base = await tree({
      ...skillTree({ 'skill/sub/own.txt': 'own', 'skill/sub/deeper/own2.txt': 'own' }),
      'canary/canary.txt': 'secret',
      'canary/deeper/canary2.txt': 'secret',
      // Same names as the skill's: a stat made by path after the listing would take their identities.
      'canary/own.txt': 'secret',
      'canary/deeper/own2.txt': 'secret',
    })
    await symlink(join(base, 'canary'), join(base, 'link'))
    const outside = new Set(
      ['own.txt', 'deeper/own2.txt'].map((f) => statSync(join(base, 'canary', f)).ino),
    )
    const won = (rel: string, file: SkillFileEntry) => isCanary(rel) || outside.has(file.ino)
    const tally = await race(base, join(base, 'skill', 'sub'), join(base, 'link'), won)
    expect(tally.wins).toEqual([])
    expect(tally.landed).toBeGreaterThan(0)
  })

  it('never lists a subfolder below a parent swapped for a symlink to an outside folder', async () => {
    const base = await tree({
      ...skillTree({ 'skill/a/a0.txt': 'a', 'skill/a/b/own.txt': 'own' }),
      'canary/a0.txt': 'secret',
      'canary/b/canary.txt': 'secret',
    })
    await symlink(join(base, 'canary'), join(base, 'link'))
    const tally = await race(base, join(base, 'skill', 'a'), join(base, 'link'), isCanary)
    expect(tally.wins).toEqual([])
    expect(tally.landed).toBeGreaterThan(0)
  })
})

describe('ways around the checked listing, each failing closed', () => {
  it('a subfolder swapped for a FIFO or a file: a warning, never a hang or a crash', async () => {
    const base = await tree({
      ...skillTree({ 'skill/sub/own.txt': 'own' }),
      'thing-file': 'not a folder',
    })
    expect(spawnSync('mkfifo', [join(base, 'thing-fifo')]).status).toBe(0)
    for (const thing of ['thing-fifo', 'thing-file']) {
      const tally = await race(base, join(base, 'skill', 'sub'), join(base, thing), () => false)
      expect(tally.landed).toBeGreaterThan(0)
    }
  })

  it('a symlink chain to an outside folder is not followed', async () => {
    const base = await tree({
      ...skillTree({ 'skill/sub/own.txt': 'own' }),
      'canary/canary.txt': 'secret',
    })
    await symlink(join(base, 'canary'), join(base, 'link2'))
    await symlink(join(base, 'link2'), join(base, 'link1'))
    const tally = await race(base, join(base, 'skill', 'sub'), join(base, 'link1'), isCanary)
    expect(tally.wins).toEqual([])
    expect(tally.landed).toBeGreaterThan(0)
  })

  it('a symlink inside the skill into a swapped subfolder: target and stat come from one inode', async () => {
    const base = await tree({
      ...skillTree({ 'skill/sub/x.txt': 'own' }),
      'canary/x.txt': 'secret',
    })
    await symlink('sub/x.txt', join(base, 'skill', 'l.txt'))
    await symlink(join(base, 'canary'), join(base, 'link'))
    const outside = statSync(join(base, 'canary', 'x.txt')).ino
    const won = (rel: string, file: SkillFileEntry) => isCanary(rel) || file.ino === outside
    const tally = await race(base, join(base, 'skill', 'sub'), join(base, 'link'), won)
    expect(tally.wins).toEqual([])
    expect(tally.landed).toBeGreaterThan(0)
  })

  it('a parent swapped for a symlink to a same-shaped folder inside the skill lists nothing under the wrong name', async () => {
    const base = await tree(skillTree({ 'skill/a/b/own.txt': 'own', 'skill/c/b/c-only.txt': 'c' }))
    await symlink(join(base, 'skill', 'c'), join(base, 'link'))
    const wrong = (rel: string): boolean => rel.startsWith('a/') && rel.endsWith('c-only.txt')
    const tally = await race(base, join(base, 'skill', 'a'), join(base, 'link'), wrong)
    expect(tally.wins).toEqual([])
    expect(tally.landed).toBeGreaterThan(0)
  })
})

describe('the checked listing refuses nothing legitimate', () => {
  it('lists every subfolder of a skill reached through a symlinked root, with odd names', async () => {
    const base = await tree({
      'real/skill/SKILL.md': skillMd('skill'),
      'real/skill/sub/x.txt': 'x',
      'real/skill/spaced name/ünï/y.txt': 'y',
      'real/skill/a/b/c/z.txt': 'z',
    })
    await symlink(join(base, 'real'), join(base, 'root'))
    await mkdir(join(base, 'real', 'skill', 'empty'))
    const skill = join(base, 'root', 'skill')
    const expected = ['SKILL.md', 'a/b/c/z.txt', 'spaced name/ünï/y.txt', 'sub/x.txt']
    const sync = runSync(scanSkillFolderSteps(skill, limits), syncSkillFs)
    const threadPool = await runAsync(scanSkillFolderSteps(skill, limits), asyncSkillFs)
    for (const scan of [sync, threadPool]) {
      expect([...scan.files.keys()].sort()).toEqual(expected)
      expect(scan.warnings).toEqual([])
      expect(scan.folders).toContain('empty')
    }
  })
})
