import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/spawn-serve.js'

// `skillhost run <id>` (issue 37.5): the id `list` prints, from the roots
// `list` searches by default; a path that exists still wins.

const bin = join(ROOT, 'dist/cli/main.js')
let tmp = ''
let project = ''
let home = ''

/** The built binary as a user types it in `cwd`, with `home` as HOME. */
function cli(cwd: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }
    execFile(process.execPath, [bin, ...args], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** A skill folder `dir` named `name` whose `scripts/go.sh` prints `says`. */
async function skill(dir: string, name: string, says: string): Promise<void> {
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Test.\n---\n# ${name}\n`)
  await writeFile(join(dir, 'scripts/go.sh'), `echo ${says}\n`)
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-run-id-'))
  project = join(tmp, 'project')
  home = join(tmp, 'home')
  await mkdir(join(project, '.git'), { recursive: true })
  await mkdir(join(project, 'src/deep'), { recursive: true })
  await skill(join(project, '.claude/skills/csv-stats'), 'csv-stats', 'project-copy')
  // The folder's name is not the id: the id is what list prints.
  await skill(join(project, '.claude/skills/tools-folder'), 'csv-tool', 'named-by-frontmatter')
  await skill(join(home, '.claude/skills/csv-stats'), 'csv-stats', 'home-copy')
  await skill(join(home, '.claude/skills/only-home'), 'only-home', 'home-only')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(process.platform !== 'linux')('skillhost run <id>', () => {
  it("runs the skill list prints under that id, from a project's .claude/skills", async () => {
    const listed = await cli(project, ['list', '--json'])
    const ids = (JSON.parse(listed.stdout) as { skills: { id: string; status: string }[] }).skills
    expect(ids.filter((s) => s.status === 'active').map((s) => s.id)).toEqual(
      expect.arrayContaining(['csv-stats', 'csv-tool', 'only-home']),
    )
    const r = await cli(project, ['run', 'csv-stats', 'scripts/go.sh'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('project-copy\n')
    // The folder used is named, and the copy it shadows, as list shows it.
    expect(r.stderr).toContain(
      `[skillhost run: skill csv-stats is .claude/skills/csv-stats; it shadows ${join(home, '.claude/skills/csv-stats')} (an earlier root wins, as list shows)]`,
    )
    const byName = await cli(project, ['run', 'csv-tool', 'scripts/go.sh'])
    expect(byName.stdout).toBe('named-by-frontmatter\n')
    const fromHome = await cli(project, ['run', 'only-home', 'scripts/go.sh'])
    expect(fromHome.stdout).toBe('home-only\n')
  })

  it('finds the id from a folder below the project, as list does (up to the repository root)', async () => {
    const r = await cli(join(project, 'src/deep'), ['run', 'csv-stats', 'scripts/go.sh'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('project-copy\n')
  })

  it('a path that exists wins over an id: a folder named csv-stats in the working folder', async () => {
    const here = join(tmp, 'here')
    await skill(join(here, 'csv-stats'), 'local-stats', 'the-folder')
    await mkdir(join(here, '.claude/skills'), { recursive: true })
    await skill(join(here, '.claude/skills/csv-stats'), 'csv-stats', 'the-id')
    const r = await cli(here, ['run', 'csv-stats', 'scripts/go.sh'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('the-folder\n')
    expect(r.stderr).not.toContain('skill csv-stats is')
    // ./ forces the path reading too; a path never falls back to an id.
    const missing = await cli(here, ['run', './only-home', 'scripts/go.sh'])
    expect(missing.code).toBe(66)
    expect(missing.stderr).toBe('skillhost run: skill root only-home does not exist\n')
  })

  it('an id no root has: exit 66, saying where it looked', async () => {
    const r = await cli(project, ['run', 'no-such-skill', 'scripts/go.sh'])
    expect(r.code).toBe(66)
    expect(r.stderr).toBe(
      `skillhost run: skill root no-such-skill does not exist\nskillhost run: no skill has the id no-such-skill in the roots list searches by default (.claude/skills, ${join(home, '.claude/skills')})\n`,
    )
    const json = await cli(project, ['run', '--json', 'no-such-skill', 'scripts/go.sh'])
    expect(json.code).toBe(66)
    const said = JSON.parse(json.stdout) as { error: { code: string; message: string } }
    expect(said.error.code).toBe('E_CLI_ROOT_UNUSABLE')
    expect(said.error.message).toContain('no skill has the id no-such-skill')
  })
})
