import { execFileSync } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import type { SkillProblem } from '../../src/sources/types.js'
import { discover, makeTree, removeTree, skillMd } from '../helpers/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

/** Discovers a root holding one good skill plus `files`; returns the problems for the bad one. */
async function problemsFor(
  files: Record<string, string | Uint8Array>,
  setup?: (root: string) => Promise<void>,
  strict = false,
): Promise<{ ids: string[]; problems: SkillProblem[] }> {
  const root = await makeTree({ 'good/SKILL.md': skillMd('good'), ...files })
  roots.push(root)
  await setup?.(root)
  const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root, strict }))
  return { ids: skills.map((s) => s.id), problems }
}

function expectSkipped(
  result: { ids: string[]; problems: SkillProblem[] },
  code: string,
  message: RegExp,
): void {
  expect(result.ids).toEqual(['good'])
  const errors = result.problems.filter((p) => p.severity === 'error')
  expect(errors.length).toBeGreaterThan(0)
  expect(errors[0]?.code).toBe(code)
  expect(errors.map((p) => p.message).join('\n')).toMatch(message)
  expect(errors[0]?.location).toBe('bad')
}

describe('bad input never crashes discovery nor yields a partial entry', () => {
  it('missing frontmatter: refused when strict; lenient, skipped only with no paragraph to describe it', async () => {
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': '# no frontmatter\n' }, undefined, true),
      'E_SKILL_MANIFEST_INVALID',
      /no YAML frontmatter/,
    )
    // As Claude Code: the folder names it, the first paragraph describes it; a heading alone does not.
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': '# no frontmatter\n' }),
      'E_SKILL_MANIFEST_INVALID',
      /description is required/,
    )
  })

  it('a SKILL.md without frontmatter loads as Claude Code reads it, with warnings', async () => {
    const root = await makeTree({
      'arxiv-search/SKILL.md':
        '# arXiv search\n\n## What\n\nSearches arXiv\nfor papers.\n\nMore.\n',
    })
    roots.push(root)
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills.map((s) => [s.id, s.description])).toEqual([
      ['arxiv-search', 'Searches arXiv for papers.'],
    ])
    expect(problems.map((p) => p.message).join('\n')).toMatch(
      /no YAML frontmatter[\s\S]*name is missing[\s\S]*description is missing/,
    )
  })

  it('frontmatter with a name and no description takes the first paragraph too, as without frontmatter (issue 40.5)', async () => {
    const root = await makeTree({
      'no-description/SKILL.md':
        '---\nname: no-description\n---\n# Title\n\nDoes one\nthing.\n\nMore.\n',
    })
    roots.push(root)
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills.map((s) => [s.id, s.description])).toEqual([
      ['no-description', 'Does one thing.'],
    ])
    expect(problems.map((p) => p.message)).toEqual([
      "description is missing; the body's first paragraph is used, as Claude Code does (other agents skip this skill)",
    ])
    // The spec's verdict still requires it.
    const strict = await discover(new FileSystemSkillSource({ roots: root, strict: true }))
    expect(strict.skills).toEqual([])
    expect(strict.problems.map((p) => p.message).join('\n')).toMatch(/description is required/)
  })

  it('frontmatter that is not a mapping', async () => {
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': '---\n- a\n---\n' }),
      'E_SKILL_MANIFEST_INVALID',
      /must be a YAML mapping/,
    )
  })

  it('unparseable YAML', async () => {
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': '---\nname: bad\ndescription: [oops\n---\n' }),
      'E_SKILL_MANIFEST_INVALID',
      /not valid YAML/,
    )
  })

  it('a YAML alias bomb', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(8)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      )
    const md = `---\nname: bad\ndescription: d\n${lines.join('\n')}\n---\n`
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': md }),
      'E_SKILL_MANIFEST_INVALID',
      /too many YAML aliases/,
    )
  })

  it('a 10 MB SKILL.md', async () => {
    const md = skillMd('bad', 'd', '', 'x'.repeat(10 * 1024 * 1024))
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': md }),
      'E_SKILL_SOURCE_TOO_LARGE',
      /limit is 1048576/,
    )
  })

  it('invalid UTF-8', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('---\nname: bad\ndescription: '),
      0xc3,
      0x28,
      0x0a,
      ...new TextEncoder().encode('---\n'),
    ])
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': bytes }),
      'E_SKILL_MANIFEST_INVALID',
      /not valid UTF-8/,
    )
  })

  it('an empty or 1025-character description', async () => {
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': skillMd('bad', '""') }),
      'E_SKILL_MANIFEST_INVALID',
      /description is required/,
    )
    const long = await problemsFor({ 'bad/SKILL.md': skillMd('bad', 'x'.repeat(1025)) })
    expect(long.ids).toEqual(['bad', 'good'])
    expect(long.problems).toMatchObject([
      { severity: 'warning', message: expect.stringMatching(/1025 characters/) },
    ])
    expectSkipped(
      await problemsFor({ 'bad/SKILL.md': skillMd('bad', 'x'.repeat(1025)) }, undefined, true),
      'E_SKILL_MANIFEST_INVALID',
      /1025/,
    )
  })

  it.each([
    ['uppercase', 'Bad'],
    ['unicode', 'bäd'],
    ['a double hyphen', 'b--ad'],
    ['a leading hyphen', '"-bad"'],
    ['65 characters', 'b'.repeat(65)],
    ['a different folder name', 'other'],
  ])('a name with %s: warned and loaded, or skipped when strict', async (_label, name) => {
    const lenient = await problemsFor({ 'bad/SKILL.md': skillMd(name) })
    expect(lenient.ids).toHaveLength(2)
    expect(lenient.problems.every((p) => p.severity === 'warning')).toBe(true)
    expect(lenient.problems.length).toBeGreaterThan(0)
    const strict = await problemsFor({ 'bad/SKILL.md': skillMd(name) }, undefined, true)
    expectSkipped(strict, 'E_SKILL_MANIFEST_INVALID', /name/)
  })

  it('metadata with non-string values', async () => {
    const result = await problemsFor({
      'bad/SKILL.md': skillMd('bad', 'd', 'metadata:\n  n: 3\n  deep: { a: 1 }\n'),
    })
    expect(result.ids).toContain('bad')
    expect(result.problems.map((p) => p.message).join()).toMatch(/metadata\.deep is not a string/)
    expectSkipped(
      await problemsFor(
        { 'bad/SKILL.md': skillMd('bad', 'd', 'metadata:\n  n: 3\n') },
        undefined,
        true,
      ),
      'E_SKILL_MANIFEST_INVALID',
      /metadata\.n/,
    )
  })

  it('a symlinked SKILL.md pointing outside the root', async () => {
    const result = await problemsFor(
      { 'outside.md': skillMd('bad'), 'bad/.keep': '' },
      async (root) => {
        await symlink(join(root, 'outside.md'), join(root, 'bad/SKILL.md'))
      },
    )
    expectSkipped(result, 'E_SKILL_SOURCE_PATH_REJECTED', /leads outside the skill folder/)
  })

  it('a symlink loop', async () => {
    const result = await problemsFor({ 'bad/.keep': '' }, async (root) => {
      await symlink(join(root, 'bad/SKILL.md'), join(root, 'bad/SKILL.md'))
    })
    expectSkipped(result, 'E_SKILL_SOURCE_FAILED', /broken or looping symlink/)
  })

  it('a folder symlink loop inside a skill and outside any skill', async () => {
    const result = await problemsFor({ 'loopy/SKILL.md': skillMd('loopy') }, async (root) => {
      await symlink(join(root, 'loopy'), join(root, 'loopy/self'))
      await symlink(root, join(root, 'up'))
    })
    expect(result.ids).toEqual(['good', 'loopy'])
    expect(result.problems.map((p) => p.message).join('\n')).toMatch(
      /symlink to a folder; not followed/,
    )
  })

  it('a file symlink escaping the skill is left out with a warning', async () => {
    const result = await problemsFor(
      { 'esc/SKILL.md': skillMd('esc'), 'secret.txt': 's' },
      async (root) => {
        await symlink(join(root, 'secret.txt'), join(root, 'esc/leak.txt'))
      },
    )
    expect(result.ids).toEqual(['esc', 'good'])
    expect(result.problems.map((p) => p.message).join()).toMatch(
      /leak\.txt is a symlink that leads outside/,
    )
  })

  it('an unreadable SKILL.md: a directory where the file is expected', async () => {
    const result = await problemsFor({ 'bad/SKILL.md/inner.txt': 'x' })
    // A folder named SKILL.md is not a skill file: the folder is reported, not served.
    expect(result.ids).toEqual(['good'])
    expectSkipped(result, 'E_SKILL_SOURCE_FAILED', /not a regular file/)
  })

  it('an unreadable SKILL.md: a FIFO', async () => {
    const result = await problemsFor({ 'bad/.keep': '' }, async (root) => {
      execFileSync('mkfifo', [join(root, 'bad/SKILL.md')])
    })
    expectSkipped(result, 'E_SKILL_SOURCE_FAILED', /not a regular file/)
  })

  it.skipIf(process.getuid?.() === 0)(
    'an unreadable SKILL.md: mode 000 (skipped as root: root reads anything)',
    async () => {
      const { chmod } = await import('node:fs/promises')
      const result = await problemsFor({ 'bad/SKILL.md': skillMd('bad') }, (root) =>
        chmod(join(root, 'bad/SKILL.md'), 0),
      )
      expectSkipped(result, 'E_SKILL_SOURCE_FAILED', /could not be read/)
    },
  )

  it('a sidecar with an unknown parameter type, a .. path or duplicate script names', async () => {
    const sidecar = (body: string): Record<string, string> => ({
      'bad/SKILL.md': skillMd('bad'),
      'bad/s.sh': 'true\n',
      'bad/skillhost.yaml': body,
    })
    const base = '  - { name: s, path: s.sh, description: S., interpreter: sh'
    expectSkipped(
      await problemsFor(sidecar(`scripts:\n${base}, params: [{ name: p, type: path }] }\n`)),
      'E_SKILL_MANIFEST_INVALID',
      /params\[0\]\.type "path"/,
    )
    expectSkipped(
      await problemsFor(
        sidecar('scripts:\n  - { name: s, path: ../s.sh, description: S., interpreter: sh }\n'),
      ),
      'E_SKILL_MANIFEST_INVALID',
      /scripts\[0\]\.path/,
    )
    expectSkipped(
      await problemsFor(sidecar(`scripts:\n${base} }\n${base} }\n`)),
      'E_SKILL_MANIFEST_INVALID',
      /duplicates another script name/,
    )
  })

  it('a skill with too many files', async () => {
    const root = await makeTree({
      'big/SKILL.md': skillMd('big'),
      'big/a': '1',
      'big/b': '2',
      'big/c': '3',
    })
    roots.push(root)
    const { skills, problems } = await discover(
      new FileSystemSkillSource({ roots: root, limits: { maxFilesPerSkill: 2 } }),
    )
    expect(skills).toEqual([])
    expect(problems[0]?.code).toBe('E_SKILL_SOURCE_TOO_LARGE')
  })

  it('a walk over maxEntries stops with a reason', async () => {
    const root = await makeTree({ 'a/x/.keep': '', 'b/x/.keep': '', 'c/x/.keep': '' })
    roots.push(root)
    await mkdir(join(root, 'd'))
    await writeFile(join(root, 'd/SKILL.md'), skillMd('d'))
    const { problems } = await discover(
      new FileSystemSkillSource({ roots: root, limits: { maxEntries: 2 } }),
    )
    expect(problems.map((p) => p.code)).toContain('E_SKILL_SOURCE_TOO_LARGE')
  })
})
