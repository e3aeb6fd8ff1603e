import { symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Tool } from '../../src/common/tool.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { rejectsWith } from '../helpers/error-code.js'
import { discover, makeTree, removeTree, skillMd, text, writeTree } from './skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})
async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTree(files)
  roots.push(root)
  return root
}

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

  it('reports a symlinked folder instead of following it', async () => {
    const root = await tree({ 'real/a/SKILL.md': skillMd('a'), 'root/.keep': '' })
    await symlink(join(root, 'real/a'), join(root, 'root/a'))
    const { skills, problems } = await discover(
      new FileSystemSkillSource({ roots: join(root, 'root') }),
    )
    expect(skills).toEqual([])
    expect(problems).toMatchObject([{ location: 'a', severity: 'warning' }])
  })
})
