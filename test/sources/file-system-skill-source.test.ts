import { symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Tool } from '../../src/common/tool.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { rejectsWith } from '../helpers/error-code.js'
import { discover, skillMd, text, treesRemovedAfterEach, writeTree } from '../helpers/skill-tree.js'

const tree = treesRemovedAfterEach()

describe('FileSystemSkillSource', () => {
  it('discovers skills breadth-first, skipping .git and node_modules, within maxDepth', async () => {
    const root = await tree({
      'alpha/SKILL.md': skillMd('alpha'),
      'group/beta/SKILL.md': skillMd('beta'),
      'group/beta/nested/SKILL.md': skillMd('nested'),
      '.git/gamma/SKILL.md': skillMd('gamma'),
      'node_modules/delta/SKILL.md': skillMd('delta'),
      'a/b/c/deep/SKILL.md': skillMd('deep'),
    })
    const { skills } = await discover(
      new FileSystemSkillSource({ roots: [root], limits: { maxDepth: 3 } }),
    )
    expect(skills.map((s) => s.id)).toEqual(['alpha', 'beta'])
    const all = await discover(new FileSystemSkillSource({ roots: [root] }))
    expect(all.skills.map((s) => s.id)).toEqual(['alpha', 'beta', 'deep'])
  })

  it('treats a root that holds SKILL.md as a skill', async () => {
    const root = await tree({ 'solo/SKILL.md': skillMd('solo') })
    const { skills } = await discover(new FileSystemSkillSource({ roots: join(root, 'solo') }))
    expect(skills.map((s) => s.id)).toEqual(['solo'])
    expect(skills[0]?.location).toBe(join(root, 'solo', 'SKILL.md'))
  })

  it('carries metadata and uses a manifest version as a version prefix', async () => {
    const root = await tree({
      'x/SKILL.md': skillMd('x', 'X.', 'version: 2.1.0\nlicense: MIT\nmetadata:\n  k: v\n'),
    })
    const { skills } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills[0]).toMatchObject({ id: 'x', license: 'MIT', metadata: { k: 'v' } })
    expect(skills[0]?.version).toMatch(/^2\.1\.0\+/)
  })

  it('reads the body, files, stat and list; rejects path escapes', async () => {
    const root = await tree({
      'x/SKILL.md': skillMd('x', 'X.', '', 'BODY\n'),
      'x/ref/a.md': 'hello',
      'x/secret/../b.txt': 'b',
    })
    const source = new FileSystemSkillSource({ roots: root })
    const [ref] = (await discover(source)).skills
    if (!ref) throw new Error('no skill')
    expect(await text(await source.read(ref))).toBe('BODY\n')
    expect(await text(await source.read(ref, './ref//a.md'))).toBe('hello')
    expect(await source.stat(ref)).toEqual({ size: 5, version: ref.version })
    expect(await source.list(ref)).toEqual(['b.txt', 'ref/a.md'])
    for (const bad of ['../x/SKILL.md', '/etc/passwd', '~/x', 'C:\\x', '\\\\h\\s', 'a\0b']) {
      await rejectsWith(source.read(ref, bad), 'E_SKILL_SOURCE_PATH_REJECTED')
    }
    await rejectsWith(source.read(ref, 'nope.txt'), 'E_SKILL_NOT_FOUND')
  })

  it('changes the version when any file changes and rejects the stale ref', async () => {
    const root = await tree({ 'x/SKILL.md': skillMd('x'), 'x/data.txt': 'one' })
    const source = new FileSystemSkillSource({ roots: root })
    const [before] = (await discover(source)).skills
    if (!before) throw new Error('no skill')
    await writeFile(join(root, 'x/data.txt'), 'two!')
    await rejectsWith(source.descriptor(before), 'E_SKILL_NOT_FOUND')
    await rejectsWith(source.read(before), 'E_SKILL_NOT_FOUND')
    const [after] = (await discover(source)).skills
    expect(after?.version).not.toBe(before.version)
    // Same size, new mtime: still a new version.
    await writeFile(join(root, 'x/data.txt'), 'six!')
    await utimes(join(root, 'x/data.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1))
    const [third] = (await discover(source)).skills
    expect(third?.version).not.toBe(after?.version)
    await writeTree(root, { 'x/new-file.txt': 'n' })
    const [fourth] = (await discover(source)).skills
    expect(fourth?.version).not.toBe(third?.version)
  })

  it('gives the same version on both discovery modes', async () => {
    const root = await tree({ 'x/SKILL.md': skillMd('x'), 'x/a/b.txt': 'b' })
    const a = await discover(new FileSystemSkillSource({ roots: root, discoveryIo: 'sync' }))
    const b = await discover(new FileSystemSkillSource({ roots: root, discoveryIo: 'async' }))
    expect(a.skills).toEqual(b.skills)
  })

  it('reports a later skill with a taken id as shadowed', async () => {
    const root = await tree({
      'a/x/SKILL.md': skillMd('x', 'first'),
      'b/x/SKILL.md': skillMd('x', 'second'),
    })
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills.map((s) => s.description)).toEqual(['first'])
    expect(problems).toMatchObject([
      { code: 'E_SKILL_SHADOWED', id: 'x', location: 'b/x', severity: 'warning' },
    ])
  })

  it('resolves scripts and isolated tools from skillhost.yaml', async () => {
    const root = await tree({
      'x/SKILL.md': skillMd('x'),
      'x/skillhost.yaml':
        'scripts:\n  - { name: go, path: run.sh, description: Go., interpreter: sh, params: [{ name: n, type: integer }] }\nisolatedTools:\n  - { name: t, description: T., source: t.js }\n',
      'x/run.sh': 'echo hi\n',
      'x/t.js': 'async (args) => "ok"\n',
    })
    const source = new FileSystemSkillSource({ roots: root })
    const [ref] = (await discover(source)).skills
    if (!ref) throw new Error('no skill')
    const d = await source.descriptor(ref)
    expect(d.scripts).toEqual([
      {
        name: 'go',
        path: 'run.sh',
        description: 'Go.',
        interpreter: 'sh',
        params: [{ name: 'n', type: 'integer' }],
      },
    ])
    expect(d.isolatedTools).toEqual([
      { name: 't', description: 'T.', source: 'async (args) => "ok"' },
    ])
    expect(d.tools).toBeUndefined()
  })

  it('skips a skill whose sidecar names a missing file', async () => {
    const root = await tree({
      'x/SKILL.md': skillMd('x'),
      'x/skillhost.yaml': 'isolatedTools:\n  - { name: t, description: T., source: t.js }\n',
    })
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills).toEqual([])
    expect(problems[0]?.message).toMatch(
      /isolatedTools\[0\]\.source "t\.js" is not a file of the skill/,
    )
  })

  it('imports module tools only when importModules allows it', async () => {
    // The built copy: module tools import the package, and the brand check works across copies.
    const toolUrl = new URL('../../dist/common/tool.js', import.meta.url).href
    const root = await tree({
      'm/SKILL.md': skillMd('m'),
      'm/skillhost.yaml': 'module: tools.mjs\n',
      'm/tools.mjs': `import { Tool } from ${JSON.stringify(toolUrl)}\nexport const hello = new Tool({ name: 'hello', description: 'Hi.', inputSchema: { type: 'object' }, handler: () => 'hi' })\nexport const other = 42\n`,
    })
    const off = new FileSystemSkillSource({ roots: root })
    const offSkills = (await discover(off)).skills
    expect(offSkills[0]?.warnings?.join()).toMatch(/not imported/)
    expect((await off.descriptor(offSkills[0]!)).tools).toBeUndefined()

    const on = new FileSystemSkillSource({ roots: root, importModules: (ref) => ref.id === 'm' })
    const [ref] = (await discover(on)).skills
    const tools = (await on.descriptor(ref!)).tools ?? []
    expect(tools.map((t) => t.name)).toEqual(['hello'])
    expect(Tool.isInstance(tools[0])).toBe(true)
  })

  it('honours an aborted signal', async () => {
    const root = await tree({ 'a/SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b') })
    const source = new FileSystemSkillSource({ roots: root })
    const seen: string[] = []
    const run = async (): Promise<void> => {
      for await (const s of source.discover({ signal: AbortSignal.abort() })) seen.push(s.id)
    }
    await rejectsWith(run(), 'E_ABORTED')
    expect(seen).toEqual([])
  })

  it('reports a missing root and still serves the others', async () => {
    const root = await tree({ 'a/SKILL.md': skillMd('a') })
    const { skills, problems } = await discover(
      new FileSystemSkillSource({ roots: [join(root, 'missing'), root] }),
    )
    expect(skills.map((s) => s.id)).toEqual(['a'])
    expect(problems).toMatchObject([{ code: 'E_SKILL_SOURCE_FAILED', severity: 'error' }])
  })

  it('follows a symlinked skill folder to its target, whose name the skill must match; links inside still stay in', async () => {
    const root = await tree({
      'real-skill/SKILL.md': skillMd('real-skill'),
      'real-skill/ref.md': 'ref',
      'secret.txt': 's',
      'root/.keep': '',
    })
    await symlink('../real-skill', join(root, 'root/linked'))
    await symlink(join(root, 'secret.txt'), join(root, 'real-skill/leak.txt'))
    const source = new FileSystemSkillSource({ roots: join(root, 'root') })
    const { skills, problems } = await discover(source)
    expect(skills.map((s) => [s.id, s.location, s.warnings])).toEqual([
      [
        'real-skill',
        join(root, 'real-skill/SKILL.md'),
        ['leak.txt is a symlink that leads outside the skill folder; ignored'],
      ],
    ])
    expect(problems.map((p) => [p.location, p.code])).toEqual([
      ['linked', 'E_SKILL_MANIFEST_INVALID'],
    ])
    expect(await source.list(skills[0]!)).toEqual(['ref.md'])
    await rejectsWith(source.read(skills[0]!, 'leak.txt'), 'E_SKILL_NOT_FOUND')
  })

  it('follows each symlinked collection once, and reports loops and repeats instead of following them', async () => {
    const root = await tree({
      'coll/one/SKILL.md': skillMd('one'),
      'coll/sub/two/SKILL.md': skillMd('two'),
      'root/own/SKILL.md': skillMd('own'),
    })
    const r = join(root, 'root')
    await symlink(join(root, 'coll'), join(r, 'a-coll'))
    await symlink(join(root, 'coll/sub'), join(r, 'b-sub')) // inside a target already followed
    await symlink(join(root, 'coll'), join(r, 'c-again')) // the same target again
    await symlink(r, join(r, 'd-up')) // a loop to the root
    await symlink(join(r, 'own'), join(r, 'e-own')) // inside the root: searched there
    await symlink(join(root, 'coll'), join(root, 'coll/sub/loop')) // a loop inside the target
    await symlink(join(root, 'gone'), join(r, 'f-dangling'))
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: r }))
    expect(skills.map((s) => [s.id, s.location])).toEqual([
      ['own', join(r, 'own/SKILL.md')],
      ['one', join(root, 'coll/one/SKILL.md')],
      ['two', join(root, 'coll/sub/two/SKILL.md')],
    ])
    expect(problems.map((p) => [p.location, p.code, p.message])).toEqual([
      [
        'b-sub',
        'E_SKILL_SOURCE_PATH_REJECTED',
        'The folder is a symlink into a-coll, which is already searched; not followed.',
      ],
      [
        'c-again',
        'E_SKILL_SOURCE_PATH_REJECTED',
        'The folder is a symlink into a-coll, which is already searched; not followed.',
      ],
      [
        'd-up',
        'E_SKILL_SOURCE_PATH_REJECTED',
        'The folder is a symlink to a folder that holds it (a loop); not followed.',
      ],
      [
        'e-own',
        'E_SKILL_SOURCE_PATH_REJECTED',
        'The folder is a symlink to a folder inside this root, which is searched there; not followed.',
      ],
      ['f-dangling', 'E_SKILL_SOURCE_FAILED', 'The symlink leads nowhere (ENOENT); ignored.'],
      [
        'a-coll/sub/loop',
        'E_SKILL_SOURCE_PATH_REJECTED',
        'The folder is a symlink to a folder that holds it (a loop); not followed.',
      ],
    ])
  })

  it('reports every folder below the depth limit and every SKILL.md nested in a skill (E_SKILL_NOT_SEARCHED)', async () => {
    const root = await tree({
      '1/2/3/4/5/6/7/deep/SKILL.md': skillMd('deep'),
      '1/2/3/4/5/6/other/.keep': '',
      'top/SKILL.md': skillMd('top'),
      'top/inner/SKILL.md': skillMd('inner'),
      'top/a/b/SKILL.md': skillMd('b'),
    })
    const shallow = await discover(new FileSystemSkillSource({ roots: root }))
    expect(shallow.skills.map((s) => s.id)).toEqual(['top'])
    expect(shallow.problems.map((p) => [p.location, p.hostPath, p.code, p.severity])).toEqual([
      ['top/a/b', join(root, 'top/a/b'), 'E_SKILL_NOT_SEARCHED', 'warning'],
      ['top/inner', join(root, 'top/inner'), 'E_SKILL_NOT_SEARCHED', 'warning'],
      ['1/2/3/4/5/6/7', join(root, '1/2/3/4/5/6/7'), 'E_SKILL_NOT_SEARCHED', 'warning'],
      ['1/2/3/4/5/6/other', join(root, '1/2/3/4/5/6/other'), 'E_SKILL_NOT_SEARCHED', 'warning'],
    ])
    expect(shallow.problems[2]?.message).toContain('limits.maxDepth 6')
    expect(shallow.problems[0]?.message).toContain('inside the skill folder top')
    const deep = await discover(
      new FileSystemSkillSource({ roots: root, limits: { maxDepth: 10 } }),
    )
    expect(deep.skills.map((s) => s.id)).toEqual(['top', 'deep'])
    expect(deep.problems.map((p) => p.location)).toEqual(['top/a/b', 'top/inner'])
  })
})
