import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deny, type ToolGate } from '../../src/common/gate.js'
import { Tool } from '../../src/common/tool.js'
import type { TurnContext } from '../../src/common/turn-context.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource, InMemorySkillSource } from '../../src/sources/index.js'
import { codeOf, rejectsWith } from '../helpers/error-code.js'
import { echoTool } from '../helpers/manager-fixtures.js'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72])
const FORMS = ['# Forms', '', 'Fill field A first.', 'Then field B.', 'Sign at the end.'].join('\n')

const dirs: string[] = []
const managers: SkillManager[] = []
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A pdf-like skill folder on disk, with a symlink that leads out of it. */
async function pdfSkillRoot(): Promise<{ root: string; dir: string; outside: string }> {
  const root = await mkdtemp(join(tmpdir(), 'skillhost-files-'))
  const outside = await mkdtemp(join(tmpdir(), 'skillhost-outside-'))
  dirs.push(root, outside)
  const dir = join(root, 'pdf')
  await mkdir(join(dir, 'reference', 'deep'), { recursive: true })
  await mkdir(join(dir, 'scripts'))
  await writeFile(
    join(dir, 'SKILL.md'),
    '---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSee forms.md and reference/.\n',
  )
  await writeFile(join(dir, 'forms.md'), `${FORMS}\n`)
  await writeFile(join(dir, 'reference', 'api.md'), '# API\n\nfill(form, values)\n')
  await writeFile(join(dir, 'reference', 'deep', 'notes.md'), 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n')
  await writeFile(join(dir, 'scripts', 'fill.py'), 'import sys\nprint(sys.argv)\n')
  await writeFile(join(dir, 'logo.png'), PNG)
  await writeFile(join(dir, 'latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n')
  await symlink(join(outside, 'secret.txt'), join(dir, 'secret.txt'))
  return { root, dir, outside }
}

async function setup(
  sources: ConstructorParameters<typeof FileSystemSkillSource>[0] | InMemorySkillSource,
  gate: ToolGate = async () => undefined,
): Promise<{ manager: SkillManager; ctx: TurnContext; call: CallTool }> {
  const source =
    sources instanceof InMemorySkillSource ? sources : new FileSystemSkillSource(sources)
  const manager = await createSkillManager({ sources: [source], gate })
  managers.push(manager)
  const ctx = manager.createTurnContext()
  for (const tool of forgeSkillTools(manager)) ctx.tools.register(tool)
  const call: CallTool = async (name, args) => {
    const tool = ctx.tools.get(name)
    if (!tool) throw new Error(`no tool ${name}`)
    return String(await tool.execute(args, ctx))
  }
  return { manager, ctx, call }
}
type CallTool = (name: string, args: Record<string, unknown>) => Promise<string>

describe('a loaded skill’s files', () => {
  it('are listed by the load, and read by line range and grep while the skill is loaded', async () => {
    const { root } = await pdfSkillRoot()
    const { manager, ctx, call } = await setup({ roots: root })
    expect(ctx.tools.has('read_skill_file')).toBe(false)
    const loaded = JSON.parse(await call('load_skill', { skill: 'pdf' }))
    expect(loaded.files).toEqual([
      { path: 'forms.md', size: FORMS.length + 1 },
      { path: 'latin1.txt', size: 5 },
      { path: 'logo.png', size: PNG.byteLength },
      { path: 'reference/api.md', size: 26 },
      { path: 'reference/deep/notes.md', size: 32 },
      { path: 'scripts/fill.py', size: 27 },
    ])
    expect(loaded.filesTotal).toBe(6)
    expect(loaded.moreFiles).toBeUndefined()
    expect(ctx.tools.has('read_skill_file')).toBe(true)

    const lines = await call('read_skill_file', {
      skill: 'pdf',
      path: 'forms.md',
      range: { startLine: 3, endLine: 4 },
    })
    expect(lines).toBe(
      [
        `[skill 'pdf' file "forms.md" lines 3-4 of 5]`,
        'Fill field A first.',
        'Then field B.',
        `[more lines follow: 1 lines after line 4; continue with read_skill_file {"skill":"pdf","path":"forms.md","range":{"startLine":5}}]`,
      ].join('\n'),
    )
    const whole = await call('read_skill_file', { skill: 'pdf', path: './reference//api.md' })
    expect(whole).toContain('fill(form, values)')
    expect(whole).toContain(`file "reference/api.md" lines 1-3 of 3`)

    const grep = await call('read_skill_file', {
      skill: 'pdf',
      path: 'forms.md',
      grep: { pattern: 'field', context: 0 },
    })
    expect(grep).toContain('2 matching lines')
    expect(grep).toContain('3:Fill field A first.')
    expect(grep).toContain('4:Then field B.')
    // A pattern that backtracks exponentially in a backtracking engine runs in linear time (RE2).
    const hostile = await call('read_skill_file', {
      skill: 'pdf',
      path: 'reference/deep/notes.md',
      grep: { pattern: '(a+)+$', regex: true },
    })
    expect(hostile).toContain('no lines match')
    const refused = await call('read_skill_file', {
      skill: 'pdf',
      path: 'forms.md',
      grep: { pattern: '(a)\\1', regex: true },
    }).catch((e: unknown) => e)
    await rejectsWith(Promise.reject(refused), 'E_ARTIFACT_READ_INVALID')

    const page = manager.skillFiles('pdf', { under: 'reference', limit: 1 })
    expect(page).toEqual({ files: [{ path: 'reference/api.md', size: 26 }], total: 2 })
    const file = await manager.readSkillFile('pdf', 'scripts/fill.py')
    expect(file.mimeType).toBe('text/x-python')
    expect(new TextDecoder().decode(file.bytes)).toBe('import sys\nprint(sys.argv)\n')
  })

  it('lists a folder (and "." every file) as text that pages and greps', async () => {
    const { root } = await pdfSkillRoot()
    const { call } = await setup({ roots: root })
    await call('load_skill', { skill: 'pdf' })
    const folder = await call('read_skill_file', { skill: 'pdf', path: 'reference/' })
    expect(folder.split('\n').slice(1)).toEqual([
      'reference/api.md\t26',
      'reference/deep/notes.md\t32',
    ])
    const all = await call('read_skill_file', { skill: 'pdf', path: '.', grep: { pattern: '.py' } })
    expect(all).toContain('6:scripts/fill.py\t27')
    // A folder name that only prefixes a file name is not a folder.
    await rejectsWith(
      () => call('read_skill_file', { skill: 'pdf', path: 'ref' }),
      'E_SKILL_NOT_FOUND',
    )
  })

  it('describes binary and invalid UTF-8 files by type and size, never their bytes', async () => {
    const { root } = await pdfSkillRoot()
    const { call } = await setup({ roots: root })
    await call('load_skill', { skill: 'pdf' })
    const png = await call('read_skill_file', { skill: 'pdf', path: 'logo.png' })
    expect(png).toContain(
      `skill 'pdf' file "logo.png" is binary (image/png, ${PNG.byteLength} bytes)`,
    )
    expect(png).not.toContain('PNG')
    const latin1 = await call('read_skill_file', {
      skill: 'pdf',
      path: 'latin1.txt',
      grep: { pattern: 'caf' },
    })
    // The one media-type rule: a name never gives bytes that are not text a text type.
    expect(latin1).toContain('is binary (application/octet-stream, 5 bytes)')
  })

  it('refuses paths that leave the skill: .., absolute, a symlink out, a file swapped after load', async () => {
    const { root, dir, outside } = await pdfSkillRoot()
    const { manager, call } = await setup({ roots: root })
    const loaded = JSON.parse(await call('load_skill', { skill: 'pdf' }))
    expect(loaded.files.map((f: { path: string }) => f.path)).not.toContain('secret.txt')
    for (const path of ['../pdf/forms.md', '/etc/passwd', 'reference/../../x', 'C:/x', '~/x']) {
      await rejectsWith(
        () => call('read_skill_file', { skill: 'pdf', path }),
        'E_SKILL_SOURCE_PATH_REJECTED',
      )
    }
    const out = await rejectsWith(
      () => call('read_skill_file', { skill: 'pdf', path: 'secret.txt' }),
      'E_SKILL_NOT_FOUND',
    )
    expect(out.message).toContain("read_skill_file with path '.' lists its files")
    expect(out.message).not.toContain(outside)
    const body = await rejectsWith(manager.readSkillFile('pdf', 'SKILL.md'), 'E_SKILL_NOT_FOUND')
    expect(body.message).toContain('came with load_skill')
    // After the scan, forms.md is swapped for a symlink out: the read is checked against the scan.
    await rm(join(dir, 'forms.md'))
    await symlink(join(outside, 'secret.txt'), join(dir, 'forms.md'))
    const swapped = await rejectsWith(
      () => call('read_skill_file', { skill: 'pdf', path: 'forms.md' }),
      'E_SKILL_SOURCE_FAILED',
    )
    expect(swapped.message).not.toContain(outside)
  })

  it('can no longer be read after unload; the tool leaves with the last loaded skill', async () => {
    const { root } = await pdfSkillRoot()
    const { manager, ctx, call } = await setup({ roots: root })
    await call('load_skill', { skill: 'pdf' })
    const tool = ctx.tools.get('read_skill_file') as Tool
    const before = await call('read_skill_file', { skill: 'pdf', path: 'forms.md' })
    expect(before).toContain('Sign at the end.')
    await call('unload_skill', { skill: 'pdf' })
    expect(ctx.tools.has('read_skill_file')).toBe(false)
    const err = await rejectsWith(
      tool.execute({ skill: 'pdf', path: 'forms.md' }, ctx),
      'E_SKILL_NOT_LOADED',
    )
    expect(err.message).toMatch(/Load it \(again\) with load_skill/)
    await rejectsWith(manager.readSkillFile('pdf', 'forms.md'), 'E_SKILL_NOT_LOADED')
    expect(codeOf(() => manager.skillFiles('pdf'))).toBe('E_SKILL_NOT_LOADED')
    // What was read before stays what it was: the result is the model's.
    expect(before).toContain('Sign at the end.')
    // Loaded again, the files are readable again.
    await call('load_skill', { skill: 'pdf' })
    expect(await call('read_skill_file', { skill: 'pdf', path: 'forms.md' })).toBe(before)
  })

  it('stays while another skill is projected, and refuses a skill that is not loaded', async () => {
    const source = new InMemorySkillSource({
      skills: [
        { name: 'one', description: 'One.', body: '# One', files: { 'a.md': 'alpha\n' } },
        { name: 'two', description: 'Two.', body: '# Two', files: { 'b.md': 'beta\n' } },
      ],
    })
    const { ctx, call } = await setup(source)
    await call('load_skill', { skill: 'one' })
    await call('load_skill', { skill: 'two' })
    await call('unload_skill', { skill: 'one' })
    expect(ctx.tools.has('read_skill_file')).toBe(true)
    expect(await call('read_skill_file', { skill: 'two', path: 'b.md' })).toContain('beta')
    await rejectsWith(
      () => call('read_skill_file', { skill: 'one', path: 'a.md' }),
      'E_SKILL_NOT_LOADED',
    )
    await rejectsWith(
      () =>
        call('read_skill_file', { skill: 'two', path: 'b.md', range: {}, grep: { pattern: 'b' } }),
      'E_ARTIFACT_READ_INVALID',
    )
  })

  it('is gated as a lifecycle tool; a host tool of the same name wins; no skill tool may take the name', async () => {
    const asked: { tool: string; tier?: string }[] = []
    const gate: ToolGate = async (_ctx, request) => {
      asked.push({ tool: request.tool, ...(request.tier ? { tier: request.tier } : {}) })
      if (request.tool === 'read_skill_file') throw deny('no file reads here')
    }
    const source = new InMemorySkillSource({
      skills: [
        { name: 'one', description: 'One.', body: '# One', files: { 'a.md': 'alpha\n' } },
        { name: 'thief', description: 'Thief.', body: '# T', tools: [echoTool('read_skill_file')] },
      ],
    })
    const { manager, ctx, call } = await setup(source, gate)
    await call('load_skill', { skill: 'one' })
    const denied = await rejectsWith(
      () => call('read_skill_file', { skill: 'one', path: 'a.md' }),
      'E_TOOL_DENIED',
    )
    expect(denied.message).toContain('no file reads here')
    expect(asked).toContainEqual({ tool: 'read_skill_file', tier: 'lifecycle' })
    await rejectsWith(manager.load('thief', ctx), 'E_SKILL_TOOL_COLLISION')

    const host = new Tool({
      name: 'read_skill_file',
      description: 'The host’s own.',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'host',
    })
    const other = manager.createTurnContext()
    other.tools.register(host)
    await manager.load('one', other)
    expect(other.tools.get('read_skill_file')).toBe(host)
    await manager.unload('one', other)
    expect(other.tools.get('read_skill_file')).toBe(host)
  })

  it('ends the load result’s page early when paths are long', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 300; i++) files[`${String(i).padStart(3, '0')}-${'p'.repeat(496)}.md`] = 'x'
    const source = new InMemorySkillSource({
      skills: [{ name: 'long', description: 'Long paths.', body: '# Long', files }],
    })
    const { call } = await setup(source)
    const loaded = JSON.parse(await call('load_skill', { skill: 'long' }))
    expect(loaded.files).toHaveLength(31) // 31 paths of 503 characters fit in 16,000
    expect(loaded.filesTotal).toBe(300)
    expect(loaded.moreFiles).toContain('"range":{"startLine":32}')
  })

  it('pages a listing of 10,000 files', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 10_000; i++) files[`data/f${String(i).padStart(5, '0')}.txt`] = `${i}\n`
    const source = new InMemorySkillSource({
      skills: [{ name: 'big', description: 'Big.', body: '# Big', files }],
    })
    const { manager, call } = await setup(source)
    const loaded = JSON.parse(await call('load_skill', { skill: 'big' }))
    expect(loaded.files).toHaveLength(200)
    expect(loaded.files[199]).toEqual({ path: 'data/f00199.txt', size: 4 })
    expect(loaded.filesTotal).toBe(10_000)
    expect(loaded.moreFiles).toBe(
      'read_skill_file {"skill":"big","path":".","range":{"startLine":201}} lists the rest (path<TAB>size per line)',
    )
    const next = await call('read_skill_file', {
      skill: 'big',
      path: '.',
      range: { startLine: 201 },
    })
    const rows = next.split('\n')
    expect(rows[0]).toBe(
      `[skill 'big' files in "." (10000; path<TAB>size per line) lines 201-400 of 10000]`,
    )
    expect(rows[1]).toBe('data/f00200.txt\t4')
    expect(rows[200]).toBe('data/f00399.txt\t4')
    expect(rows[201]).toContain('"range":{"startLine":401}')
    const last = await call('read_skill_file', {
      skill: 'big',
      path: 'data',
      range: { startLine: 9_901 },
    })
    expect(last).toContain('lines 9901-10000 of 10000')
    expect(last).toContain('data/f09999.txt\t5')
    expect(last).not.toContain('continue with')
    const found = await call('read_skill_file', {
      skill: 'big',
      path: '.',
      grep: { pattern: 'f0777[0-2]', regex: true },
    })
    expect(found).toContain('7771:data/f07770.txt\t5')
    expect(found).toContain('3 matching lines')
    const page = manager.skillFiles('big', { offset: 9_999 })
    expect(page).toEqual({ files: [{ path: 'data/f09999.txt', size: 5 }], total: 10_000 })
    expect(manager.skillFiles('big', { limit: 5_000 }).files).toHaveLength(1_000)
    expect(codeOf(() => manager.skillFiles('big', { offset: -1 }))).toBe('E_TOOL_INVALID_ARGS')
    expect(codeOf(() => manager.skillFiles('big', { under: 'nope' }))).toBe('E_SKILL_NOT_FOUND')
  })
})
