import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runSync } from '../../src/sources/discovery/fs-steps.js'
import { type SyncSkillFs, syncSkillFs } from '../../src/sources/discovery/skill-fs.js'
import { VisitCache } from '../../src/sources/discovery/visit-cache.js'
import type { Visit, VisitOptions } from '../../src/sources/discovery/visit-folder.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'
import { waitFor } from '../helpers/spawn-serve.js'

/** The real synchronous filesystem, counting each kind of call. */
function countingFs(): { fs: SyncSkillFs; calls: Record<string, number> } {
  const calls: Record<string, number> = { readdir: 0, stat: 0, realpath: 0, readCapped: 0 }
  const count = (op: string): void => {
    calls[op] = (calls[op] ?? 0) + 1
  }
  const fs: SyncSkillFs = {
    readdir: (p) => {
      count('readdir')
      return syncSkillFs.readdir(p)
    },
    // A checked listing (a skill's subfolder) is a listing too.
    readdirChecked: (p, real) => {
      count('readdir')
      return syncSkillFs.readdirChecked(p, real)
    },
    // Stats of a checked folder's files, one call per folder.
    statChecked: (p, real, names) => {
      count('stat')
      return syncSkillFs.statChecked(p, real, names)
    },
    stat: (p) => {
      count('stat')
      return syncSkillFs.stat(p)
    },
    realpath: (p) => {
      count('realpath')
      return syncSkillFs.realpath(p)
    },
    // A link's target and stat from one descriptor: the resolution the scan used to make by realpath.
    resolve: (p) => {
      count('realpath')
      return syncSkillFs.resolve(p)
    },
    readCapped: (...a) => {
      count('readCapped')
      return syncSkillFs.readCapped(...a)
    },
  }
  return { fs, calls }
}

const options: VisitOptions = { limits: resolveSourceLimits(), strict: false }
const roots: string[] = []
const caches: VisitCache[] = []
afterEach(async () => {
  for (const c of caches.splice(0)) c.close()
  for (const r of roots.splice(0)) await removeTree(r)
})

async function skillFolder(): Promise<string> {
  const root = await makeTree({
    'pdf/SKILL.md': skillMd('pdf'),
    'pdf/skillhost.yaml': 'scripts: []\n',
    'pdf/scripts/fill.py': 'print(1)\n',
  })
  roots.push(root)
  return join(root, 'pdf')
}

/** One pass over one folder with a counting driver: the visit and the calls it made. */
function pass(cache: VisitCache, dir: string): { visit: Visit; calls: Record<string, number> } {
  const { fs, calls } = countingFs()
  const n = cache.begin()
  const folder = { dir, rel: 'pdf', name: 'pdf' }
  // As the walk does: run the steps, then hand the visit back.
  const visit = runSync(cache.visit(folder, 1, options), fs)
  cache.remember(folder, 1, visit)
  cache.complete(n)
  return { visit, calls }
}

const entryOf = (v: Visit) => (v.kind === 'skill' && v.outcome.ok ? v.outcome.entry : undefined)

describe('VisitCache', () => {
  it('unwatched: an unchanged skill folder is rescanned (listings and stats) but not read again', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache()
    const first = pass(cache, dir)
    expect(first.calls.readCapped).toBe(2) // SKILL.md and skillhost.yaml
    const second = pass(cache, dir)
    expect(second.calls.readCapped).toBe(0)
    expect(second.calls.readdir).toBe(first.calls.readdir)
    expect(entryOf(second.visit)).toBe(entryOf(first.visit))
    expect(cache.clean).toBe(false) // nothing watched: every pass must look
  })

  it('unwatched: an in-place edit of a file in a subfolder (no folder changes) is a new version', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache()
    const before = entryOf(pass(cache, dir).visit)
    await appendFile(join(dir, 'scripts/fill.py'), 'print(2)\n')
    const after = entryOf(pass(cache, dir).visit)
    expect(after).toBeDefined()
    expect(after).not.toBe(before)
    expect(after?.version).not.toBe(before?.version)
  })

  it('watched and clean: the remembered visit, with no filesystem call at all', async () => {
    const dir = await skillFolder()
    let changes = 0
    const cache = new VisitCache({ watch: { maxFolders: 100, onChange: () => void changes++ } })
    caches.push(cache)
    const first = pass(cache, dir)
    expect(cache.clean).toBe(true)
    expect(cache.watchState()).toEqual({ folders: 2 }) // the skill folder and scripts/
    const second = pass(cache, dir)
    expect(second.calls).toEqual({ readdir: 0, stat: 0, realpath: 0, readCapped: 0 })
    expect(second.visit).toBe(first.visit)

    // An in-place write deep in the skill: the watch on scripts/ reports it.
    await appendFile(join(dir, 'scripts/fill.py'), 'print(3)\n')
    await waitFor(() => changes > 0)
    expect(cache.clean).toBe(false)
    const third = pass(cache, dir)
    expect(third.calls.readdir).toBeGreaterThan(0)
    expect(entryOf(third.visit)?.version).not.toBe(entryOf(first.visit)?.version)
    expect(cache.clean).toBe(true)
  })

  it('watched: a new subfolder is watched once the folder is read again', async () => {
    const dir = await skillFolder()
    let changes = 0
    const cache = new VisitCache({ watch: { maxFolders: 100, onChange: () => void changes++ } })
    caches.push(cache)
    pass(cache, dir)
    await mkdir(join(dir, 'references'))
    await waitFor(() => changes > 0)
    pass(cache, dir)
    expect(cache.watchState()).toEqual({ folders: 3 })
    const seen = changes
    await writeFile(join(dir, 'references/forms.md'), '# Forms\n')
    await waitFor(() => changes > seen)
    expect(cache.clean).toBe(false)
    expect([...(entryOf(pass(cache, dir).visit)?.scan.files.keys() ?? [])]).toContain(
      'references/forms.md',
    )
  })

  it('past the watch limit: the folders left unwatched are named and looked at on every pass', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache({ watch: { maxFolders: 1, onChange: () => undefined } })
    caches.push(cache)
    const first = pass(cache, dir)
    expect(cache.clean).toBe(false)
    expect(cache.watchState()?.unwatched).toMatch(/1 folder\(s\) not watched: the watch limit of 1/)
    // Not clean, so the next pass rescans; unchanged, so nothing is read.
    const second = pass(cache, dir)
    expect(second.calls.readdir).toBeGreaterThan(0)
    expect(second.calls.readCapped).toBe(0)
    expect(entryOf(second.visit)).toBe(entryOf(first.visit))
  })

  it('invalidate makes a watched, clean folder be read again', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache({ watch: { maxFolders: 100, onChange: () => undefined } })
    caches.push(cache)
    pass(cache, dir)
    expect(cache.clean).toBe(true)
    cache.invalidate(dir)
    expect(cache.clean).toBe(false)
    expect(pass(cache, dir).calls.readdir).toBeGreaterThan(0)
  })

  it('a completed pass forgets folders it no longer reached, and their watches', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache({ watch: { maxFolders: 100, onChange: () => undefined } })
    caches.push(cache)
    pass(cache, dir)
    expect(cache.size).toBe(1)
    const n = cache.begin()
    cache.complete(n)
    expect(cache.size).toBe(0)
    expect(cache.watchState()).toEqual({ folders: 0 })
  })

  it('unwatched, remembers only loaded skills: nothing else is reused', async () => {
    const dir = await skillFolder()
    const cache = new VisitCache()
    caches.push(cache)
    pass(cache, dir)
    expect(cache.size).toBe(1)
    // The parent is a plain folder: visited, not kept.
    const parent = { dir: join(dir, '..'), rel: '' }
    const n = cache.begin()
    const visit = runSync(cache.visit(parent, 0, options), syncSkillFs)
    expect(visit.kind).toBe('folder')
    cache.remember(parent, 0, visit)
    expect(cache.size).toBe(1)
    cache.complete(n)
    expect(cache.size).toBe(0)
  })
})
