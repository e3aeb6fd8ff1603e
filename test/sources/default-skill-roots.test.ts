import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultSkillRoots } from '../../src/index.js'

const temps: string[] = []
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })))
})

/** A temp folder holding each of `dirs` (and `.git` where named). */
async function layout(dirs: readonly string[]): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'skillhost-roots-'))
  temps.push(base)
  for (const d of dirs) await mkdir(join(base, d), { recursive: true })
  return base
}

describe('defaultSkillRoots', () => {
  it('lists project roots from cwd up to the repository root, then the user roots; only those that exist', async () => {
    const base = await layout([
      // Above the repository: never searched.
      '.agents/skills',
      'repo/.git',
      'repo/.claude/skills',
      'repo/.agents/skills',
      'repo/pkg/.agents/skills',
      'repo/pkg/app/src',
      'home/.agents/skills',
      'home/.claude/skills',
    ])
    const roots = defaultSkillRoots({
      cwd: join(base, 'repo/pkg/app/src'),
      home: join(base, 'home'),
    })
    expect(roots).toEqual([
      join(base, 'repo/pkg/.agents/skills'),
      join(base, 'repo/.agents/skills'),
      join(base, 'repo/.claude/skills'),
      join(base, 'home/.agents/skills'),
      join(base, 'home/.claude/skills'),
    ])
  })

  it('takes a .git file (a worktree) as the repository root, and only cwd when there is no repository', async () => {
    const base = await layout(['wt/.claude/skills', 'wt/sub/.agents/skills', 'home'])
    await writeFile(join(base, 'wt/.git'), 'gitdir: /elsewhere\n')
    const home = join(base, 'home')
    expect(defaultSkillRoots({ cwd: join(base, 'wt/sub'), home })).toEqual([
      join(base, 'wt/sub/.agents/skills'),
      join(base, 'wt/.claude/skills'),
    ])
    const bare = await layout(['.agents/skills', 'a/b'])
    // No .git anywhere above `a/b` inside the temp tree; tmpdir() itself is outside any repository.
    expect(defaultSkillRoots({ cwd: join(bare, 'a/b'), home })).toEqual([])
    expect(defaultSkillRoots({ cwd: bare, home })).toEqual([join(bare, '.agents/skills')])
  })

  it('lists a folder once when the project is the home folder, and skips a file where a folder is expected', async () => {
    const home = await layout(['.git', '.agents/skills', '.claude'])
    await writeFile(join(home, '.claude/skills'), 'not a folder')
    expect(defaultSkillRoots({ cwd: home, home })).toEqual([join(home, '.agents/skills')])
  })
})
