import { afterEach, describe, expect, it } from 'vitest'
import { MAX_YAML_DEPTH } from '../../src/manifest/check-yaml-depth.js'
import { parseSkillMd } from '../../src/manifest/parse-skill-md.js'
import { parseSkillSidecar } from '../../src/manifest/parse-skill-sidecar.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { codeOf } from '../helpers/error-code.js'
import { discover, makeTree, removeTree, skillMd } from '../sources/skill-tree.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeTree))
})

// Deep enough that the old recursive composer aborted the process.
const deepSeq = (n: number): string => `a: ${'['.repeat(n)}${']'.repeat(n)}\n`
const deepMap = (n: number): string => `a: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`
const deepBlock = (n: number): string => `a:\n${'- '.repeat(n)}x\n`

describe('YAML nesting is bounded before parsing', () => {
  it('refuses deep frontmatter and sidecars with E_SKILL_MANIFEST_INVALID; normal YAML still parses', () => {
    for (const yaml of [deepSeq(15_000), deepMap(8_000), deepBlock(15_000)]) {
      expect(codeOf(() => parseSkillMd(`---\nname: x\ndescription: y\n${yaml}---\n`))).toBe(
        'E_SKILL_MANIFEST_INVALID',
      )
    }
    for (const yaml of [deepSeq(100_000), deepMap(100_000), deepBlock(100_000)])
      expect(codeOf(() => parseSkillSidecar(yaml))).toBe('E_SKILL_MANIFEST_INVALID')
    // Brackets inside quotes and comments are text, not nesting.
    const quoted = `a: "${'['.repeat(200)}"\nb: '${'{'.repeat(200)}' # ${'['.repeat(200)}\n`
    expect(parseSkillMd(`---\nname: x\ndescription: y\n${quoted}---\n`).frontmatter.a).toBe(
      '['.repeat(200),
    )
    const ok = deepSeq(MAX_YAML_DEPTH / 4)
    expect(() => parseSkillMd(`---\nname: x\ndescription: y\n${ok}---\n`)).not.toThrow()
    expect(parseSkillSidecar('scripts: []\n').scripts).toEqual([])
  })

  it('discovery skips a skill with deep frontmatter or a deep sidecar and serves the others', async () => {
    const root = await makeTree({
      'good/SKILL.md': skillMd('good'),
      'deep-md/SKILL.md': `---\nname: deep-md\ndescription: d\n${deepSeq(15_000)}---\n`,
      'deep-side/SKILL.md': skillMd('deep-side'),
      'deep-side/skillhost.yaml': deepSeq(100_000),
    })
    roots.push(root)
    const { skills, problems } = await discover(new FileSystemSkillSource({ roots: root }))
    expect(skills.map((s) => s.id)).toEqual(['good'])
    const errors = problems.filter((p) => p.severity === 'error')
    expect(errors.map((p) => p.location).sort()).toEqual(['deep-md', 'deep-side'])
    expect(errors.every((p) => p.code === 'E_SKILL_MANIFEST_INVALID')).toBe(true)
  })
})
