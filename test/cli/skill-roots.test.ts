import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const bin = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))

let tmp = ''
let home = ''
let repo = ''
/** The working directory: two levels inside the fake repository. */
let cwd = ''

const skillMd = (name: string, description = `The ${name} skill.`): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, content)
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-roots-cli-'))
  home = join(tmp, 'home')
  repo = join(tmp, 'repo')
  cwd = join(repo, 'packages/app')
  await mkdir(join(repo, '.git'), { recursive: true })
  await mkdir(cwd, { recursive: true })
  // Above the repository root: never a default root.
  await put(join(tmp, '.agents/skills/above/SKILL.md'), skillMd('above'))
  // The project: a skill installed as a symlink (`ln -s ../real-skill linked`), one nearer cwd.
  await put(join(repo, '.claude/real-skill/SKILL.md'), skillMd('real-skill'))
  await put(join(repo, '.claude/real-skill/notes.md'), 'notes')
  await mkdir(join(repo, '.claude/skills'), { recursive: true })
  await symlink('../real-skill', join(repo, '.claude/skills/linked'))
  await put(join(cwd, '.agents/skills/shared/SKILL.md'), skillMd('shared', 'Project copy.'))
  // The user: a copy of `shared` (shadowed by the project's) and a skill 8 levels down.
  await put(join(home, '.agents/skills/shared/SKILL.md'), skillMd('shared', 'User copy.'))
  await put(join(home, '.claude/skills/a/b/c/d/e/f/g/deep/SKILL.md'), skillMd('deep'))
  await put(join(tmp, 'extra/extra/SKILL.md'), skillMd('extra'))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { PATH: process.env.PATH, HOME: home } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

const listJson = async (args: string[]) => {
  const r = await run(['list', '--json', ...args])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as {
    roots: string[]
    skills: { id: string; status: string; path: string; description: string }[]
    problems: { code: string; hostPath: string; severity: string }[]
  }
}

describe('conventional roots, symlinked skills and the depth limit in the CLI', () => {
  it('list searches the project roots up to the repository root, then the user roots; project wins', async () => {
    const listed = await listJson([])
    expect(listed.roots).toEqual([
      join(cwd, '.agents/skills'),
      join(repo, '.claude/skills'),
      join(home, '.agents/skills'),
      join(home, '.claude/skills'),
    ])
    expect(listed.skills.map((s) => [s.id, s.status, s.path])).toEqual([
      ['shared', 'active', join(cwd, '.agents/skills/shared')],
      // The symlinked folder is followed: its target is the skill folder.
      ['real-skill', 'active', join(repo, '.claude/real-skill')],
      ['shared', 'shadowed', join(home, '.agents/skills/shared')],
    ])
    expect(listed.skills[0]?.description).toBe('Project copy.')
    const text = await run(['list'])
    expect(text.stdout).toMatch(/^roots: /)
    expect(text.stdout).toMatch(/shared +shadowed/)
  })

  it('--root adds a root before the defaults; --no-default-roots drops them; a root argument replaces them', async () => {
    const extra = join(tmp, 'extra')
    const added = await listJson(['--root', extra])
    expect(added.roots[0]).toBe(extra)
    expect(added.skills.map((s) => s.id)).toEqual(['extra', 'shared', 'real-skill', 'shared'])
    const only = await listJson(['--root', extra, '--no-default-roots'])
    expect(only.roots).toEqual([extra])
    const replaced = await listJson([extra])
    expect(replaced.roots).toEqual([extra])
    const none = await run(['list', '--no-default-roots'])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no skill roots')
  })

  it('list and prompt on a missing root exit 1 and name it', async () => {
    for (const command of ['list', 'prompt']) {
      const r = await run([command, 'no-such-root'])
      expect(r.code, command).toBe(1)
      // Named as typed, relative to the working directory.
      expect(r.stderr).toContain('skill root no-such-root does not exist')
      const flag = await run([command, '--root', 'no-such-root'])
      expect(flag.code, command).toBe(1)
      expect(flag.stderr).toContain('skill root no-such-root does not exist')
    }
  })

  it('reports a skill below the depth limit with a count and its path; --max-depth 10 finds it', async () => {
    const root = join(home, '.claude/skills')
    const cut = join(root, 'a/b/c/d/e/f/g')
    const shallow = await run(['list', root])
    expect(shallow.code).toBe(0)
    expect(shallow.stdout).toContain('0 skills')
    expect(shallow.stdout).toContain('warning: 1 folder not searched')
    expect(shallow.stdout).toContain('home/.claude/skills/a/b/c/d/e/f/g\n')
    const json = await listJson([root])
    expect(json.problems).toMatchObject([
      { code: 'E_SKILL_NOT_SEARCHED', hostPath: cut, severity: 'warning' },
    ])
    const deep = await listJson([root, '--max-depth', '10'])
    expect(deep.skills.map((s) => s.id)).toEqual(['deep'])
    expect(deep.problems).toEqual([])
    const validated = await run(['validate', '--max-depth', '10', root])
    expect(validated.code, validated.stdout).toBe(0)
    expect(validated.stdout).toMatch(/^ok +deep /m)
    const prompt = await run(['prompt', root])
    expect(prompt.stderr).toContain('1 folder not searched')
    expect(prompt.stderr).toContain(cut)
    expect((await run(['list', '--max-depth', 'deep'])).code).toBe(2)
  })

  it('validate, list and serve agree on a root holding `ln -s ../real-skill linked`', async () => {
    const root = join(repo, '.claude/skills')
    const validated = await run(['validate', '--json', root])
    expect(validated.code, validated.stdout).toBe(0)
    expect(JSON.parse(validated.stdout).skills).toMatchObject([
      { path: join(repo, '.claude/real-skill'), name: 'real-skill', valid: true, warnings: [] },
    ])
    const listed = await listJson([root])
    expect(listed.skills.map((s) => [s.id, s.status])).toEqual([['real-skill', 'active']])

    // serve with its default roots, from the same working directory.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', '--no-scripts', '--state-dir', join(tmp, 'state')],
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'roots-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const result = (await client.callTool({
        name: 'list_skills',
        arguments: {},
      })) as CallToolResult
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
      const ids = (JSON.parse(text).skills as { id: string }[]).map((s) => s.id)
      expect(ids).toEqual(['shared', 'real-skill'])
      const loaded = await client.callTool({
        name: 'load_skill',
        arguments: { skill: 'real-skill' },
      })
      expect(loaded.isError).toBeFalsy()
    } finally {
      await client.close()
    }
  })

  it('list shows the ref of a shadowed copy, and serve loads that copy by it', async () => {
    const listed = await listJson([])
    const refs = (listed.skills as { id: string; status: string; ref?: string }[]).map((s) => [
      s.id,
      s.status,
      s.ref,
    ])
    // Numbered as serve numbers its roots: the user's .agents/skills is the third.
    expect(refs).toEqual([
      ['shared', 'active', 'shared'],
      ['real-skill', 'active', 'real-skill'],
      ['shared', 'shadowed', 'filesystem:3/shared'],
    ])
    const text = await run(['list'])
    expect(text.stdout).toMatch(/shared +shadowed .*ref filesystem:3\/shared, by/)

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', '--no-scripts', '--state-dir', join(tmp, 'state-refs')],
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'roots-refs-test', version: '1.0.0' })
    await client.connect(transport)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      const body = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
      return { isError: result.isError === true, body }
    }
    try {
      const found = JSON.parse((await call('list_skills', { query: 'shared' })).body)
      expect(
        found.skills.map((s: { ref: string; description: string }) => [s.ref, s.description]),
      ).toEqual([
        ['shared', 'Project copy.'],
        ['filesystem:3/shared', 'User copy.'],
      ])
      const loaded = await call('load_skill', { skill: 'filesystem:3/shared' })
      expect(loaded.isError, loaded.body).toBe(false)
      expect(JSON.parse(loaded.body)).toMatchObject({ id: 'shared', ref: 'filesystem:3/shared' })
      expect(loaded.body).not.toContain(home)
    } finally {
      await client.close()
    }
  })

  it('validate takes a SKILL.md path as well as a folder, and searches the default roots with no path', async () => {
    const file = join(repo, '.claude/real-skill/SKILL.md')
    const r = await run(['validate', '--json', file])
    expect(r.code, r.stdout).toBe(0)
    expect(JSON.parse(r.stdout).skills).toMatchObject([{ name: 'real-skill', valid: true }])
    const all = await run(['validate', '--json', '--max-depth', '10'])
    expect(all.code, all.stdout).toBe(0)
    expect(JSON.parse(all.stdout).skills.map((s: { name: string }) => s.name)).toEqual([
      'shared',
      'real-skill',
      'shared',
      'deep',
    ])
  })
})
