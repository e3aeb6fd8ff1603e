import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/index.js'
import { scanSkillFolder } from '../../src/sources/discovery/scan-skill-folder.js'
import { resolveSourceLimits } from '../../src/sources/source-limits.js'
import { rejectsWith } from '../helpers/error-code.js'
import { discover, skillMd, treesRemovedAfterEach } from '../helpers/skill-tree.js'

const tree = treesRemovedAfterEach()

async function discovered(source: FileSystemSkillSource) {
  return (await discover(source)).skills
}

const SIDECAR = 'scripts:\n  - { name: go, path: run.sh, description: Go., interpreter: sh }\n'
const limits = resolveSourceLimits()

describe('a lean scan (statLoadedOnly) stats only the files the loader reads', () => {
  it('lists every file, stats SKILL.md and agents/openai.yaml only, and its hash ignores the rest', async () => {
    const root = await tree({
      's/SKILL.md': skillMd('s'),
      's/agents/openai.yaml': 'policy: {}\n',
      's/scripts/a.py': 'print(1)\n',
      's/notes.txt': 'n',
    })
    const dir = join(root, 's')
    const lean = await scanSkillFolder(dir, limits, true)
    expect([...lean.files.keys()].sort()).toEqual([
      'SKILL.md',
      'agents/openai.yaml',
      'notes.txt',
      'scripts/a.py',
    ])
    expect(lean.files.get('scripts/a.py')?.ino).toBe(0)
    expect(lean.files.get('notes.txt')?.ino).toBe(0)
    expect(lean.files.get('SKILL.md')?.ino).toBeGreaterThan(0)
    expect(lean.files.get('agents/openai.yaml')?.ino).toBeGreaterThan(0)
    // The full scan sees every file; the lean one, rescanned, gives the same hash.
    const full = await scanSkillFolder(dir, limits)
    expect(full.files.get('scripts/a.py')?.ino).toBeGreaterThan(0)
    expect(full.hash).not.toBe(lean.hash)
    await writeFile(join(dir, 'scripts/a.py'), 'print("longer")\n')
    expect((await scanSkillFolder(dir, limits, true)).hash).toBe(lean.hash)
    expect((await scanSkillFolder(dir, limits)).hash).not.toBe(full.hash)
    // A file added, or SKILL.md changed, still moves the lean hash.
    await writeFile(join(dir, 'more.txt'), 'm')
    const added = await scanSkillFolder(dir, limits, true)
    expect(added.hash).not.toBe(lean.hash)
    await writeFile(join(dir, 'SKILL.md'), skillMd('s', 'changed'))
    expect((await scanSkillFolder(dir, limits, true)).hash).not.toBe(added.hash)
  })

  it('scans a skill with a skillhost.yaml in full: its tools are read against their stats', async () => {
    const root = await tree({
      's/SKILL.md': skillMd('s'),
      's/skillhost.yaml': SIDECAR,
      's/run.sh': 'echo hi\n',
    })
    const scan = await scanSkillFolder(join(root, 's'), limits, true)
    expect(scan.files.get('run.sh')?.ino).toBeGreaterThan(0)
    const source = new FileSystemSkillSource({ roots: root, statLoadedOnly: true })
    const [ref] = await discovered(source)
    expect((await source.descriptor(ref!)).scripts).toMatchObject([{ name: 'go', path: 'run.sh' }])
  })

  it('keeps a plain skill current for its descriptor and body, and fails closed on a file it did not stat', async () => {
    const root = await tree({ 's/SKILL.md': skillMd('s'), 's/ref/guide.md': 'guide' })
    const source = new FileSystemSkillSource({ roots: root, statLoadedOnly: true })
    const [ref] = await discovered(source)
    // The descriptor's rescan is lean too, so the ref is current.
    expect((await source.descriptor(ref!)).name).toBe('s')
    const body = await new Response(await source.read(ref!)).text()
    expect(body.length).toBeGreaterThan(0)
    // Listed, but never read: its identity was not taken.
    expect(await source.list(ref!)).toContain('ref/guide.md')
    await rejectsWith(
      (async () => new Response(await source.read(ref!, 'ref/guide.md')).text())(),
      'E_SKILL_SOURCE_FAILED',
    )
    // The same file read from a default source: the legitimate read is untouched.
    const full = new FileSystemSkillSource({ roots: root })
    const [fullRef] = await discovered(full)
    expect(await new Response(await full.read(fullRef!, 'ref/guide.md')).text()).toBe('guide')
    expect(await readFile(join(root, 's/ref/guide.md'), 'utf8')).toBe('guide')
  })

  it('is ignored with overlays or a lock, whose sidecars and pins name files', async () => {
    const root = await tree({ 's/SKILL.md': skillMd('s'), 's/run.sh': 'echo hi\n' })
    const overlay = await tree({ 's/skillhost.yaml': SIDECAR })
    const source = new FileSystemSkillSource({
      roots: root,
      overlays: overlay,
      statLoadedOnly: true,
    })
    const [ref] = await discovered(source)
    expect((await source.descriptor(ref!)).scripts).toMatchObject([{ name: 'go' }])
    expect(await new Response(await source.read(ref!, 'run.sh')).text()).toBe('echo hi\n')
  })
})
