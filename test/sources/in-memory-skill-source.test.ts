import { describe, expect, it } from 'vitest'
import { Tool } from '../../src/common/tool.js'
import { defineSkill } from '../../src/sources/define-skill.js'
import { InMemorySkillSource } from '../../src/sources/in-memory-skill-source.js'
import { codeOf } from '../helpers/error-code.js'
import { discover, text } from '../helpers/skill-tree.js'

const hello = defineSkill({
  name: 'hello',
  description: 'Says hello.',
  body: '# Hello\n\n## Use\n\nGreet.\n',
  files: { 'scripts/hi.sh': 'echo hi\n' },
  scripts: [{ name: 'hi', path: 'scripts/hi.sh', description: 'Hi.', interpreter: 'sh' }],
  tools: [
    new Tool({
      name: 'greet',
      description: 'G.',
      inputSchema: { type: 'object' },
      handler: () => 'hi',
    }),
  ],
})

describe('InMemorySkillSource', () => {
  it('serves programmatic skills', async () => {
    const source = new InMemorySkillSource({ skills: [hello] })
    const { skills } = await discover(source)
    expect(skills).toMatchObject([{ id: 'hello', name: 'hello', description: 'Says hello.' }])
    const ref = skills[0]!
    expect(await text(await source.read(ref))).toBe(hello.body)
    expect(await text(await source.read(ref, 'scripts/hi.sh'))).toBe('echo hi\n')
    expect(await source.list(ref)).toEqual(['scripts/hi.sh'])
    const d = await source.descriptor(ref)
    expect(d.tools?.[0]?.name).toBe('greet')
    expect(d.scripts?.[0]?.name).toBe('hi')
  })

  it('bumps the version on replace and rejects the old ref', async () => {
    const source = new InMemorySkillSource()
    const v1 = source.add(hello)
    const v2 = source.replace({ ...hello, body: 'new' })
    expect(v2.version).not.toBe(v1.version)
    expect(await codeOf(() => source.read(v1))).toBe('E_SKILL_NOT_FOUND')
    expect(await text(await source.read(v2))).toBe('new')
    expect(source.remove('hello')).toBe(true)
    expect(await codeOf(() => source.descriptor(v2))).toBe('E_SKILL_NOT_FOUND')
    expect((await discover(source)).skills).toEqual([])
  })

  it('validates definitions strictly', async () => {
    const source = new InMemorySkillSource()
    expect(await codeOf(() => source.add({ ...hello, name: 'Bad Name' }))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
    expect(await codeOf(() => source.add({ ...hello, description: '' }))).toBe(
      'E_SKILL_MANIFEST_INVALID',
    )
    expect(await codeOf(() => source.add({ ...hello, files: { '../x': 'x' } }))).toBe(
      'E_SKILL_SOURCE_PATH_REJECTED',
    )
    expect(await codeOf(() => source.add({ ...hello, files: {} }))).toBe('E_SKILL_MANIFEST_INVALID')
    source.add(hello)
    expect(await codeOf(() => source.add(hello))).toBe('E_SKILL_MANIFEST_INVALID')
    expect(await codeOf(() => source.replace({ ...hello, name: 'absent' }))).toBe(
      'E_SKILL_NOT_FOUND',
    )
  })
})
