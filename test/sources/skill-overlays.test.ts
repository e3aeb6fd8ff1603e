import { execFileSync } from 'node:child_process'
import { mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { OVERLAY_WINS_WARNING } from '../../src/sources/discovery/load-fs-skill.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { isOverlayKey, overlaySidecarPath } from '../../src/sources/overlays/skill-overlays.js'
import { rejectsWith } from '../helpers/error-code.js'
import { discover, makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const trees: string[] = []
afterEach(async () => {
  await Promise.all(trees.splice(0).map(removeTree))
})

async function tree(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await makeTree(files)
  trees.push(root)
  return root
}

const GO = 'scripts:\n  - { name: go, path: scripts/go.sh, description: Go., interpreter: sh }\n'

/** Skills under `root/skills`, overlays under `root/overlays` (and `root/overlays2`). */
async function layout(files: Record<string, string | Uint8Array>): Promise<string> {
  return tree({
    'skills/plain/SKILL.md': skillMd('plain'),
    'skills/plain/scripts/go.sh': 'echo go\n',
    ...files,
  })
}

function source(root: string, overlays: string[] = ['overlays'], discoveryIo?: 'sync' | 'async') {
  return new FileSystemSkillSource({
    roots: join(root, 'skills'),
    overlays: overlays.map((o) => join(root, o)),
    ...(discoveryIo && { discoveryIo }),
  })
}

describe('overlay sidecars', () => {
  it('adds typed scripts to a skill that ships no sidecar, with paths relative to the skill', async () => {
    const root = await layout({ 'overlays/plain/skillhost.yaml': GO })
    const src = source(root)
    const { skills, problems } = await discover(src)
    expect(problems).toEqual([])
    expect(skills.map((s) => s.id)).toEqual(['plain'])
    expect(skills[0]?.warnings).toBeUndefined()
    const d = await src.descriptor(skills[0]!)
    expect(d.scripts).toEqual([
      { name: 'go', path: 'scripts/go.sh', description: 'Go.', interpreter: 'sh' },
    ])
    // The overlay is not a file of the skill.
    expect(await src.list(skills[0]!)).toEqual(['scripts/go.sh'])
  })

  it('serves no declarations without overlays, and the layout is <dir>/<id>/skillhost.yaml', async () => {
    const root = await layout({ 'overlays/plain/skillhost.yaml': GO })
    const src = new FileSystemSkillSource({ roots: join(root, 'skills') })
    const [skill] = (await discover(src)).skills
    expect((await src.descriptor(skill!)).scripts).toBeUndefined()
    expect(overlaySidecarPath('/o', 'plain')).toBe('/o/plain/skillhost.yaml')
  })

  it('wins over the skill`s own sidecar, even a broken one, and the catalog entry says so', async () => {
    const root = await layout({
      'skills/plain/skillhost.yaml': 'scripts: [ {',
      'overlays/plain/skillhost.yaml': GO,
    })
    const src = source(root)
    const { skills, problems } = await discover(src)
    expect(skills[0]?.warnings).toEqual([OVERLAY_WINS_WARNING])
    expect(OVERLAY_WINS_WARNING).toMatch(/ignored.*overlay/)
    expect(problems).toMatchObject([
      { id: 'plain', severity: 'warning', message: OVERLAY_WINS_WARNING },
    ])
    expect((await src.descriptor(skills[0]!)).scripts?.map((s) => s.name)).toEqual(['go'])
  })

  it('an empty overlay is valid and switches off what the skill`s own sidecar declares', async () => {
    const root = await layout({
      'skills/plain/skillhost.yaml': GO,
      'overlays/plain/skillhost.yaml': '',
    })
    const src = source(root)
    const [skill] = (await discover(src)).skills
    expect(skill?.warnings).toEqual([OVERLAY_WINS_WARNING])
    expect((await src.descriptor(skill!)).scripts).toBeUndefined()
  })

  it('takes the first overlay directory that holds one', async () => {
    const root = await layout({
      'overlays/other/skillhost.yaml': GO,
      'overlays2/plain/skillhost.yaml': GO.replace('name: go', 'name: second'),
      'overlays3/plain/skillhost.yaml': GO.replace('name: go', 'name: third'),
    })
    const src = source(root, ['missing-dir', 'overlays', 'overlays2', 'overlays3'])
    const [skill] = (await discover(src)).skills
    expect((await src.descriptor(skill!)).scripts?.map((s) => s.name)).toEqual(['second'])
  })

  it('declares isolated tools whose source is a file of the skill', async () => {
    const root = await layout({
      'skills/plain/t.js': 'async () => "ok"\n',
      'overlays/plain/skillhost.yaml':
        'isolatedTools:\n  - { name: t, description: T., source: ./t.js }\n',
    })
    const src = source(root)
    const [skill] = (await discover(src)).skills
    expect((await src.descriptor(skill!)).isolatedTools).toEqual([
      { name: 't', description: 'T.', source: 'async () => "ok"' },
    ])
  })

  it('changes the version when the overlay is edited, added or removed, and old refs go stale', async () => {
    const root = await layout({})
    const src = source(root)
    const bare = (await discover(src)).skills[0]!
    const file = join(root, 'overlays/plain/skillhost.yaml')
    await mkdir(join(root, 'overlays/plain'), { recursive: true })
    await writeFile(file, GO)
    await rejectsWith(src.descriptor(bare), 'E_SKILL_NOT_FOUND')
    const added = (await discover(src)).skills[0]!
    expect(added.version).not.toBe(bare.version)
    expect((await src.descriptor(added)).scripts).toHaveLength(1)

    await writeFile(file, GO.replace('Go.', 'Go now.'))
    await utimes(file, new Date(), new Date(Date.now() + 5000))
    await rejectsWith(src.read(added, 'scripts/go.sh'), 'E_SKILL_NOT_FOUND')
    const edited = (await discover(src)).skills[0]!
    expect(edited.version).not.toBe(added.version)
    expect((await src.descriptor(edited)).scripts?.[0]?.description).toBe('Go now.')

    await rm(file)
    await rejectsWith(src.stat(edited), 'E_SKILL_NOT_FOUND')
    const removed = (await discover(src)).skills[0]!
    expect(removed.version).toBe(bare.version)
    expect((await src.descriptor(removed)).scripts).toBeUndefined()
  })

  it('never looks outside the overlay directory for an id that is not one path segment', async () => {
    // Lenient discovery serves a name that breaks the naming rule, with a warning.
    const root = await tree({
      'skills/evil/SKILL.md': skillMd('../evil'),
      'skills/evil/scripts/go.sh': 'echo go\n',
      'evil/skillhost.yaml': GO,
    })
    const src = source(root)
    const { skills } = await discover(src)
    expect(skills.map((s) => s.id)).toEqual(['../evil'])
    expect((await src.descriptor(skills[0]!)).scripts).toBeUndefined()
    for (const id of ['..', '.', 'a/b', 'a\\b', 'a\0b', 'a\nb', ''])
      expect(isOverlayKey(id), JSON.stringify(id)).toBe(false)
    expect(isOverlayKey('pdf-form')).toBe(true)
  })

  it('follows a symlinked overlay (the directory is the deployer`s)', async () => {
    const root = await layout({ 'kept/plain.yaml': GO })
    await mkdir(join(root, 'overlays/plain'), { recursive: true })
    await symlink(join(root, 'kept/plain.yaml'), join(root, 'overlays/plain/skillhost.yaml'))
    const src = source(root)
    const [skill] = (await discover(src)).skills
    expect((await src.descriptor(skill!)).scripts).toHaveLength(1)
  })
})

describe('bad overlays are typed problems, and the other skills still serve', () => {
  const cases: [label: string, content: string | Uint8Array, code: string, message: RegExp][] = [
    ['bad YAML', 'scripts: [ {', 'E_SKILL_MANIFEST_INVALID', /overlay skillhost\.yaml is invalid/],
    [
      'an unknown field',
      'scripts: []\nextra: 1\n',
      'E_SKILL_MANIFEST_INVALID',
      /extra is not a known field/,
    ],
    [
      'a script path with ..',
      GO.replace('scripts/go.sh', '../other/go.sh'),
      'E_SKILL_MANIFEST_INVALID',
      /traverses to a parent/,
    ],
    [
      'an absolute script path',
      GO.replace('scripts/go.sh', '/bin/sh'),
      'E_SKILL_MANIFEST_INVALID',
      /it is absolute/,
    ],
    [
      'a script the skill does not ship',
      GO.replace('scripts/go.sh', 'scripts/nope.sh'),
      'E_SKILL_MANIFEST_INVALID',
      /overlay skillhost\.yaml is invalid: scripts\[0\]\.path "scripts\/nope\.sh" is not a file of the skill/,
    ],
    [
      'a script that is a symlink out of the skill',
      GO.replace('scripts/go.sh', 'scripts/leak.sh'),
      'E_SKILL_MANIFEST_INVALID',
      /"scripts\/leak\.sh" is not a file of the skill/,
    ],
    [
      'YAML nested past the depth cap',
      `scripts: ${'['.repeat(2000)}`,
      'E_SKILL_MANIFEST_INVALID',
      /nests YAML deeper than 64/,
    ],
    [
      'invalid UTF-8',
      new Uint8Array([0x73, 0x3a, 0x20, 0xff, 0x0a]),
      'E_SKILL_MANIFEST_INVALID',
      /overlay skillhost\.yaml/,
    ],
    [
      'a file over the size cap',
      `# ${'x'.repeat(5000)}\n`,
      'E_SKILL_SOURCE_TOO_LARGE',
      /overlay skillhost\.yaml is \d+ bytes; the limit is 4096/,
    ],
  ]

  for (const [label, content, code, message] of cases) {
    it(`${label}: ${code}`, async () => {
      const root = await layout({
        'skills/other/SKILL.md': skillMd('other'),
        'overlays/plain/skillhost.yaml': content,
        'secret.sh': 'echo secret\n',
      })
      await symlink(join(root, 'secret.sh'), join(root, 'skills/plain/scripts/leak.sh'))
      for (const discoveryIo of ['sync', 'async'] as const) {
        const src = new FileSystemSkillSource({
          roots: join(root, 'skills'),
          overlays: join(root, 'overlays'),
          discoveryIo,
          limits: { maxSkillMdBytes: 4096 },
        })
        const { skills, problems } = await discover(src)
        expect(skills.map((s) => s.id)).toEqual(['other'])
        const errors = problems.filter((p) => p.severity === 'error')
        expect(errors).toHaveLength(1)
        expect(errors[0]?.code).toBe(code)
        expect(errors[0]?.message).toMatch(message)
        // Model-safe: the message never names a host path.
        expect(errors[0]?.message).not.toContain(root)
      }
    })
  }

  it('an overlay that is a folder or a FIFO: E_SKILL_SOURCE_FAILED', async () => {
    const root = await layout({ 'overlays/plain/skillhost.yaml/.keep': '' })
    const { skills, problems } = await discover(source(root))
    expect(skills).toEqual([])
    expect(problems).toMatchObject([
      { code: 'E_SKILL_SOURCE_FAILED', message: 'overlay skillhost.yaml is not a regular file.' },
    ])
    await rm(join(root, 'overlays/plain/skillhost.yaml'), { recursive: true })
    try {
      execFileSync('mkfifo', [join(root, 'overlays/plain/skillhost.yaml')])
    } catch {
      return // no mkfifo here; the folder case ran
    }
    const fifo = await discover(source(root))
    expect(fifo.problems).toMatchObject([{ code: 'E_SKILL_SOURCE_FAILED' }])
  })

  it('a looping overlay symlink: E_SKILL_SOURCE_FAILED naming the overlay, not a host path', async () => {
    const root = await layout({})
    await mkdir(join(root, 'overlays/plain'), { recursive: true })
    const link = join(root, 'overlays/plain/skillhost.yaml')
    await symlink(link, link)
    const { skills, problems } = await discover(source(root))
    expect(skills).toEqual([])
    expect(problems).toMatchObject([{ code: 'E_SKILL_SOURCE_FAILED' }])
    expect(problems[0]?.message).toMatch(/overlay skillhost\.yaml.*could not be read \(ELOOP\)/)
    expect(problems[0]?.message).not.toContain(root)
  })

  it('the sync and async discovery drivers agree, overlays included', async () => {
    const root = await layout({
      'skills/own/SKILL.md': skillMd('own'),
      'skills/own/skillhost.yaml': GO.replace('scripts/go.sh', 'go.sh'),
      'skills/own/go.sh': 'echo own\n',
      'skills/bad/SKILL.md': skillMd('bad'),
      'skills/both/SKILL.md': skillMd('both'),
      'skills/both/skillhost.yaml': 'nope: 1\n',
      'skills/both/go.sh': '',
      'overlays/plain/skillhost.yaml': GO,
      'overlays/bad/skillhost.yaml': 'scripts: 3\n',
      'overlays2/both/skillhost.yaml': GO.replace('scripts/go.sh', 'go.sh'),
    })
    const viaSync = await discover(source(root, ['overlays', 'overlays2'], 'sync'))
    const viaAsync = await discover(source(root, ['overlays', 'overlays2'], 'async'))
    expect(viaSync.skills.map((s) => s.id).sort()).toEqual(['both', 'own', 'plain'])
    expect(viaSync.problems.map((p) => p.code).sort()).toEqual([
      'E_SKILL_MANIFEST_INVALID',
      'E_SKILL_MANIFEST_INVALID',
    ])
    expect(viaAsync).toEqual(viaSync)
  })
})
