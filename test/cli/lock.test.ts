import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { parseSkillLock } from '../../src/sources/lock/skill-lock.js'
import { connectStdio } from '../helpers/serve-clients.js'
import { discover, skillMd, writeTree } from '../helpers/skill-tree.js'
import { ROOT } from '../helpers/spawn-serve.js'

const bin = join(ROOT, 'dist/cli/main.js')
const base = await mkdtemp(join(tmpdir(), 'skillhost-lock-cli-'))
afterAll(() => rm(base, { recursive: true, force: true }))

let dir = ''
let home = ''
let n = 0
beforeEach(async () => {
  home = join(base, `home-${n}`)
  dir = join(base, `case-${n++}`)
  await writeTree(dir, {
    'skills/alpha/SKILL.md': skillMd('alpha'),
    'skills/alpha/notes.md': 'alpha notes',
    'skills/beta/SKILL.md': skillMd('beta'),
    'skills/beta/scripts/run.sh': 'echo beta\n',
  })
})

/** Runs the built CLI in `cwd` with an environment that has no default roots. */
function run(args: string[], cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
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

/** Every file under `folder`, path-sorted, with its sha256: digest and size, read straight from disk. */
async function diskFiles(
  folder: string,
): Promise<{ path: string; digest: string; size: number }[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  const paths = entries
    .filter((e) => e.isFile())
    .map((e) => relative(folder, join(e.parentPath, e.name)))
    .sort()
  return Promise.all(
    paths.map(async (path) => {
      const bytes = await readFile(join(folder, path))
      const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`
      return { path, digest, size: bytes.byteLength }
    }),
  )
}

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

describe('skillhost lock', () => {
  it('writes skills.lock.json in the working directory: each served skill with its digest and a relative source', async () => {
    const r = await run(['lock', 'skills'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('pinned 2 skills to skills.lock.json')
    const lock = parseSkillLock(await readFile(join(dir, 'skills.lock.json')))
    const source = new FileSystemSkillSource({ roots: join(dir, 'skills') })
    const { skills } = await discover(source)
    expect([...lock.skills]).toEqual(
      await Promise.all(
        skills.map(async (s) => [
          s.id,
          {
            digest: await source.digest(s),
            source: `skills/${s.id}`,
            // Version 2: every file's sha256: digest and size, as the MCP Skills Extension lists them.
            files: await diskFiles(join(dir, 'skills', s.id)),
          },
        ]),
      ),
    )
  })

  it('searches the default roots as list does, naming a user skill ~/…', async () => {
    await writeTree(home, { '.agents/skills/delta/SKILL.md': skillMd('delta') })
    const r = await run(['lock'])
    expect(r.code).toBe(0)
    // ./skills is a default root too (after the conventional ones).
    expect(r.stdout).toMatch(/^roots: /m)
    const lock = parseSkillLock(await readFile(join(dir, 'skills.lock.json')))
    expect(Object.fromEntries([...lock.skills].map(([id, e]) => [id, e.source]))).toEqual({
      alpha: 'skills/alpha',
      beta: 'skills/beta',
      delta: '~/.agents/skills/delta',
    })
  })

  it('--out writes elsewhere, naming sources relative to that file; with no skill it writes nothing and exits 1', async () => {
    const r = await run(['lock', '--out', 'locks/pins.json', 'skills'], dir)
    // The folder of --out must exist: lock creates the file, not folders.
    expect(r.code).toBe(1)
    await mkdir(join(dir, 'locks'))
    expect((await run(['lock', '--out', 'locks/pins.json', 'skills'])).code).toBe(0)
    const lock = parseSkillLock(await readFile(join(dir, 'locks/pins.json')))
    // Outside the lockfile's folder and the home folder: the absolute path.
    expect(lock.skills.get('alpha')?.source).toBe(join(dir, 'skills/alpha'))

    await mkdir(join(dir, 'empty'))
    const none = await run(['lock', '--out', 'none.json', 'empty'])
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/no skill found to pin/)
    expect(existsSync(join(dir, 'none.json'))).toBe(false)
  })

  it('list and validate --locked show pin state; a bad lockfile is an error naming it', async () => {
    expect((await run(['lock', 'skills'])).code).toBe(0)
    await writeFile(join(dir, 'skills/alpha/notes.md'), 'alpha notes, edited')
    await writeTree(dir, { 'skills/gamma/SKILL.md': skillMd('gamma') })

    const list = await run(['list', '--locked', 'skills.lock.json', 'skills'])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/^alpha\s+changed-since-pinned/m)
    expect(list.stdout).toMatch(/^beta\s+active/m)
    expect(list.stdout.replace(/\n {2,}/g, ' ')).toMatch(
      /changed alpha: pinned sha256-\S+, now sha256-/,
    )
    expect(list.stdout).toMatch(/gamma: E_SKILL_NOT_PINNED: .*not in the lockfile/)
    const json = JSON.parse(
      (await run(['list', '--json', '--locked', 'skills.lock.json', 'skills'])).stdout,
    )
    expect(json.skills.find((s: { id: string }) => s.id === 'alpha').pin.state).toBe(
      'changed-since-pinned',
    )

    const validate = await run(['validate', '--locked', 'skills.lock.json', 'skills'])
    expect(validate.code).toBe(1)
    expect(validate.stdout).toMatch(/invalid\s+alpha/)
    expect(validate.stdout).toMatch(/E_SKILL_NOT_PINNED/)
    expect(validate.stdout).toMatch(/^ok\s+beta/m)
    // Without the lock the same skills are valid.
    expect((await run(['validate', 'skills'])).code).toBe(0)

    await writeFile(join(dir, 'bad.json'), '{"lockfileVersion": 1, "skills": {"__proto__": 1}}')
    const bad = await run(['list', '--locked', 'bad.json', 'skills'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(
      /--locked bad\.json: The skill lockfile is invalid: skill "__proto__" is not an object/,
    )
  })
})

describe('skillhost serve --locked (built binary, real MCP client)', () => {
  it('lists a changed skill as changed-since-pinned, refuses to load it, serves the pinned one, leaves the unpinned out', async () => {
    expect((await run(['lock', 'skills'])).code).toBe(0)
    await writeFile(join(dir, 'skills/alpha/notes.md'), 'alpha notes, edited')
    await writeTree(dir, { 'skills/gamma/SKILL.md': skillMd('gamma') })
    const { client, stderr } = await connectStdio(
      ['--no-scripts', '--state-dir', join(dir, 'state'), '--locked', 'skills.lock.json', 'skills'],
      { cwd: dir, home, clientName: 'serve-locked-test' },
    )
    try {
      const listed = JSON.parse(text(await client.callTool({ name: 'list_skills', arguments: {} })))
      const rows = Object.fromEntries(listed.skills.map((s: { id: string }) => [s.id, s]))
      expect(Object.keys(rows).sort()).toEqual(['alpha', 'beta'])
      expect(rows.alpha.pin.state).toBe('changed-since-pinned')
      expect(rows.beta.pin).toBeUndefined()
      expect(listed.skipped).toBe(1)

      const refused = (await client.callTool({
        name: 'load_skill',
        arguments: { skill: 'alpha' },
      })) as CallToolResult
      expect(refused.isError).toBe(true)
      expect(text(refused)).toMatch(
        /^E_SKILL_NOT_PINNED: Skill "alpha" changed since it was pinned/,
      )
      const loaded = (await client.callTool({
        name: 'load_skill',
        arguments: { skill: 'beta' },
      })) as CallToolResult
      expect(loaded.isError).toBeFalsy()
      expect(stderr()).toMatch(/locked: .*skills\.lock\.json \(2 skills pinned/)
    } finally {
      await client.close()
    }
  })

  it('exits 1 naming a lockfile it cannot use', async () => {
    const r = await run(['serve', '--no-scripts', '--locked', 'missing.json', 'skills'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /--locked \S*missing\.json: The skill lockfile could not be read \(ENOENT\)/,
    )
  })

  it('--verify names the drift and exits 1; --frozen refuses to write; neither touches the file', async () => {
    expect((await run(['lock', 'skills'])).code).toBe(0)
    const path = join(dir, 'skills.lock.json')
    const written = await readFile(path, 'utf8')
    const ok = await run(['lock', '--verify', 'skills'])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('skills.lock.json matches what the roots serve')
    const frozenOk = await run(['lock', '--frozen', 'skills'])
    expect(frozenOk.code).toBe(0)
    expect(frozenOk.stdout).toContain('skills.lock.json is up to date')

    // One file changed, one added to a skill, and a new skill.
    await writeTree(dir, {
      'skills/alpha/notes.md': 'alpha notes, edited',
      'skills/beta/extra.txt': 'new\n',
      'skills/gamma/SKILL.md': skillMd('gamma'),
    })
    const drift = await run(['lock', '--verify', 'skills'])
    expect(drift.code).toBe(1)
    expect(drift.stdout).toContain('skills.lock.json has drifted (3 skills):')
    expect(drift.stdout).toContain('  changed alpha: ~notes.md\n')
    expect(drift.stdout).toContain('  changed beta: +extra.txt\n')
    expect(drift.stdout).toContain('  added gamma\n')
    const frozen = await run(['lock', '--frozen', 'skills'])
    expect(frozen.code).toBe(1)
    expect(frozen.stdout).toContain('--frozen: skills.lock.json was not written')
    expect(await readFile(path, 'utf8')).toBe(written)

    const both = await run(['lock', '--verify', '--frozen', 'skills'])
    expect(both.code).toBe(2)
    const missing = await run(['lock', '--verify', '--out', 'none.json', 'skills'])
    expect(missing.code).toBe(1)
    expect(existsSync(join(dir, 'none.json'))).toBe(false)
  })

  it('still reads a version-1 lockfile: validate --locked pins by it, --verify compares digests, --frozen wants it rewritten', async () => {
    expect((await run(['lock', 'skills'])).code).toBe(0)
    const path = join(dir, 'skills.lock.json')
    const v2 = JSON.parse(await readFile(path, 'utf8'))
    const v1 = {
      lockfileVersion: 1,
      skills: Object.fromEntries(
        Object.entries(v2.skills as Record<string, { digest: string; source: string }>).map(
          ([id, e]) => [id, { digest: e.digest, source: e.source }],
        ),
      ),
    }
    await writeFile(path, `${JSON.stringify(v1, null, 2)}\n`)
    expect(parseSkillLock(await readFile(path)).lockfileVersion).toBe(1)
    expect((await run(['lock', '--verify', 'skills'])).code).toBe(0)
    const frozen = await run(['lock', '--frozen', 'skills'])
    expect(frozen.code).toBe(1)
    expect(frozen.stdout).toContain('would be rewritten (lockfile version 1)')
    await writeTree(dir, { 'skills/alpha/notes.md': 'changed' })
    const drift = await run(['lock', '--verify', 'skills'])
    expect(drift.code).toBe(1)
    // Version 1 records no files: the skill is named, its files are not.
    expect(drift.stdout).toContain('  changed alpha\n')
    const validate = await run(['validate', '--locked', 'skills.lock.json', 'skills'])
    expect(validate.code).toBe(1)
    expect(validate.stdout + validate.stderr).toMatch(/alpha/)
  })
})
