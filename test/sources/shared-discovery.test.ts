import { appendFileSync, linkSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManagerEvent } from '../../src/manager/types.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { discover, makeTree, removeTree, skillMd, writeTree } from '../helpers/skill-tree.js'
import { waitFor } from '../helpers/spawn-serve.js'

const roots: string[] = []
const sources: FileSystemSkillSource[] = []
afterEach(async () => {
  for (const s of sources.splice(0)) s.close()
  for (const r of roots.splice(0)) await removeTree(r)
})

async function collection(n = 3): Promise<string> {
  const files: Record<string, string> = {}
  for (let i = 0; i < n; i++) {
    files[`team/s${i}/SKILL.md`] = skillMd(`s${i}`)
    files[`team/s${i}/scripts/run.py`] = `print(${i})\n`
  }
  const root = await makeTree(files)
  roots.push(root)
  return root
}

function source(root: string, watch = false): FileSystemSkillSource {
  const s = new FileSystemSkillSource({ roots: root, watch })
  sources.push(s)
  return s
}

describe('one source shared by many callers', () => {
  it('an unchanged tree: a second discovery yields the same skill objects and versions', async () => {
    const s = source(await collection())
    const a = await discover(s)
    const b = await discover(s)
    expect(b.skills.map((x) => x.id)).toEqual(['s0', 's1', 's2'])
    for (const [i, skill] of b.skills.entries()) expect(skill).toBe(a.skills[i])
  })

  it('concurrent discoveries share a walk and agree; one started after a change sees it', async () => {
    const root = await collection()
    const s = source(root)
    const first = discover(s)
    const second = discover(s)
    const [a, b] = await Promise.all([first, second])
    expect(b.skills).toEqual(a.skills)
    // A walk may still be running from `first`: a caller arriving after the change must see it.
    const third = discover(s)
    await writeTree(root, { 'team/s3/SKILL.md': skillMd('s3') })
    const fourth = await discover(s)
    await third
    expect(fourth.skills.map((x) => x.id)).toContain('s3')
  })

  it('only the changed skill gets a new version; the others keep their objects', async () => {
    const root = await collection()
    const s = source(root)
    const before = await discover(s)
    appendFileSync(join(root, 'team/s1/scripts/run.py'), '# edited in place\n')
    const after = await discover(s)
    expect(after.skills[0]).toBe(before.skills[0])
    expect(after.skills[2]).toBe(before.skills[2])
    expect(after.skills[1]?.version).not.toBe(before.skills[1]?.version)
  })

  it('problems are replayed in the same order to every caller', async () => {
    const root = await collection(2)
    await writeTree(root, { 'team/broken/SKILL.md': '---\nname: broken\n---\nno description\n' })
    const s = source(root, true)
    const a = await discover(s)
    const b = await discover(s)
    expect(a.problems.length).toBeGreaterThan(0)
    expect(b.problems).toEqual(a.problems)
  })

  it('an aborted signal still yields nothing, and the shared walk serves the next caller', async () => {
    const s = source(await collection())
    const controller = new AbortController()
    const seen: string[] = []
    await expect(async () => {
      for await (const skill of s.discover({ signal: controller.signal })) {
        seen.push(skill.id)
        controller.abort()
      }
    }).rejects.toMatchObject({ code: 'E_ABORTED' })
    expect(seen).toEqual(['s0'])
    expect((await discover(s)).skills).toHaveLength(3)
  })
})

describe('watch', () => {
  it('tells listeners of a change, and the next discovery has it; nothing changed replays', async () => {
    const root = await collection()
    const s = source(root, true)
    const first = await discover(s)
    expect(s.watchState()?.folders).toBeGreaterThanOrEqual(7) // root, team, 3 skills, 3 scripts/
    let told = 0
    s.onDidChange(() => void told++)
    const replay = await discover(s)
    for (const [i, skill] of replay.skills.entries()) expect(skill).toBe(first.skills[i])

    await writeTree(root, { 'team/s9/SKILL.md': skillMd('s9') })
    await waitFor(() => told > 0)
    expect((await discover(s)).skills.map((x) => x.id)).toContain('s9')

    const seen = told
    await rm(join(root, 'team/s0'), { recursive: true })
    await waitFor(() => told > seen)
    expect((await discover(s)).skills.map((x) => x.id)).not.toContain('s0')
  })

  it('close stops the watches and the listeners; discovery keeps working by re-reading', async () => {
    const root = await collection(1)
    const s = source(root, true)
    await discover(s)
    let told = 0
    s.onDidChange(() => void told++)
    s.close()
    expect(s.watchState()).toEqual({ folders: 0 })
    await writeFile(join(root, 'team/s0/notes.md'), 'new\n')
    const after = await discover(s)
    expect(told).toBe(0)
    expect(after.skills[0]?.id).toBe('s0')
  })

  it('a manager over a watched source refreshes its catalog on a change and says so', async () => {
    const root = await collection(1)
    const s = source(root, true)
    const manager = await createSkillManager({ sources: [s], gate: () => undefined })
    try {
      const events: SkillManagerEvent[] = []
      manager.onDidChange((e) => events.push(e))
      await writeTree(root, { 'team/fresh/SKILL.md': skillMd('fresh') })
      await waitFor(() => events.some((e) => e.kind === 'refreshed'))
      expect(manager.catalog().entries.map((e) => e.id)).toContain('fresh')
    } finally {
      await manager.dispose()
    }
  })

  it('managers over one watched source share its discovery, yet each keeps its own loaded state', async () => {
    const root = await collection(2)
    const s = source(root, true)
    const gate = () => undefined
    const a = await createSkillManager({ sources: [s], gate })
    const b = await createSkillManager({ sources: [s], gate })
    try {
      expect(b.catalog().entries.map((e) => e.id)).toEqual(a.catalog().entries.map((e) => e.id))
      await a.load('s0', a.createTurnContext())
      expect(a.catalog().entries.find((e) => e.id === 's0')?.loaded).toBe(true)
      expect(b.catalog().entries.find((e) => e.id === 's0')?.loaded).toBe(false)
      const events: string[] = []
      b.onDidChange((e) => events.push(e.kind))
      await writeTree(root, { 'team/late/SKILL.md': skillMd('late') })
      await waitFor(() => events.includes('refreshed'))
      await waitFor(() => a.catalog().entries.some((e) => e.id === 'late'))
      expect(b.catalog().entries.map((e) => e.id)).toContain('late')
      expect(a.catalog().entries.find((e) => e.id === 's0')?.loaded).toBe(true)
    } finally {
      await a.dispose()
      await b.dispose()
    }
  })

  it('a change no watch reports (a write through a hard link) still loads at its new version', async () => {
    const root = await collection(1)
    // A directory watch reports writes made through names in that directory only.
    const outside = await makeTree({})
    roots.push(outside)
    linkSync(join(root, 'team/s0/scripts/run.py'), join(outside, 'elsewhere.py'))
    const s = source(root, true)
    const manager = await createSkillManager({ sources: [s], gate: () => undefined })
    try {
      const before = manager.catalog().entries[0]?.version
      let told = 0
      s.onDidChange(() => void told++)
      appendFileSync(join(outside, 'elsewhere.py'), '# edited through the other name\n')
      // Give a (wrong) event every chance to arrive first: none does.
      await new Promise((r) => setTimeout(r, 300))
      expect(told).toBe(0)
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('s0', ctx)
      expect(loaded.version).not.toBe(before)
    } finally {
      await manager.dispose()
    }
  })
})

describe('declared: what discovery saw, from memory', () => {
  it('answers without the disk (a listing of many skills rescans none), agrees with descriptor, and refuses a stale ref', async () => {
    const root = await makeTree({
      'tools/SKILL.md': skillMd('tools'),
      'tools/skillhost.yaml':
        'scripts:\n  - name: count\n    path: scripts/count.sh\n    interpreter: sh\n    description: Count.\nisolatedTools:\n  - name: add\n    description: Add.\n    source: add.js\nmodule: tools.mjs\n',
      'tools/scripts/count.sh': 'echo 1\n',
      'tools/add.js': 'async (args) => 1\n',
      'tools/tools.mjs': 'export const tools = []\n',
    })
    roots.push(root)
    const s = source(root)
    const [skill] = (await discover(s)).skills
    if (!skill) throw new Error('no skill')
    const descriptor = await s.descriptor(skill)
    const seen = s.declared(skill)
    expect(seen).toEqual({
      files: ['add.js', 'scripts/count.sh', 'skillhost.yaml', 'tools.mjs'],
      scripts: descriptor.scripts,
      isolatedTools: ['add'],
      unavailableTools: descriptor.unavailableTools,
      ignored: descriptor.ignored ?? [],
    })
    expect(seen?.unavailableTools.map((t) => t.name)).toEqual(['module:tools.mjs'])
    // Moved away: every read fails, the memory still answers for this version.
    await rename(join(root, 'tools'), join(root, 'moved'))
    await expect(s.descriptor(skill)).rejects.toMatchObject({ code: 'E_SKILL_NOT_FOUND' })
    expect(s.declared(skill)?.isolatedTools).toEqual(['add'])
    expect(s.declared({ id: 'tools', version: 'other' })).toBeUndefined()
    expect(s.declared({ id: 'nope', version: skill.version })).toBeUndefined()
  })

  it("gives the manifest's ignored Claude Code keys as descriptor does (what validate reads without a rescan)", async () => {
    const root = await makeTree({ 'cc/SKILL.md': skillMd('cc', 'Forks.', 'context: fork\n') })
    roots.push(root)
    const s = source(root)
    const [skill] = (await discover(s)).skills
    if (!skill) throw new Error('no skill')
    const ignored = (await s.descriptor(skill)).ignored
    expect(ignored?.map((k) => k.key)).toEqual(['context'])
    expect(s.declared(skill)?.ignored).toEqual(ignored)
  })
})
