import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import type { SkillSource } from '../../src/sources/types.js'
import { memorySource, reportSkill } from '../helpers/manager-fixtures.js'

let tmp = ''
async function skill(root: string, folder: string, frontmatter: string): Promise<string> {
  await mkdir(join(tmp, root, folder), { recursive: true })
  await writeFile(join(tmp, root, folder, 'SKILL.md'), `---\n${frontmatter}\n---\n# ${folder}\n`)
  return join(tmp, root)
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-counts-'))
  // A lenient warning (uppercase name), a skill with no description, and one id in two roots.
  await skill('warn', 'Mixed', 'name: Mixed\ndescription: Warns.')
  await skill('broken', 'broken', 'name: broken')
  await skill('broken', 'fine', 'name: fine\ndescription: Fine.')
  await skill('one', 'dup', 'name: dup\ndescription: First.')
  await skill('two', 'dup', 'name: dup\ndescription: Second.')
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

async function listSkills(sources: SkillSource[]): Promise<Record<string, unknown>> {
  await using manager = await createSkillManager({ sources, gate: async () => {} })
  const ctx = manager.createTurnContext()
  const list = forgeSkillTools(manager).find((t) => t.name === 'list_skills')!
  const page = JSON.parse(String(await list.execute({}, ctx)))
  expect(page).toMatchObject(
    Object.fromEntries(Object.entries(manager.search().counts).filter(([, n]) => n > 0)) as Record<
      string,
      number
    >,
  )
  return page
}

describe('list_skills counters count what they say', () => {
  it('a skill with a warning is counted in withWarnings, not skipped', async () => {
    const page = await listSkills([new FileSystemSkillSource({ roots: join(tmp, 'warn') })])
    expect(page.total).toBe(1)
    expect(page.withWarnings).toBe(1)
    expect(page).not.toHaveProperty('skipped')
    expect(page).not.toHaveProperty('shadowed')
  })

  it('a skill that cannot be served is counted in skipped', async () => {
    const page = await listSkills([new FileSystemSkillSource({ roots: join(tmp, 'broken') })])
    expect(page.total).toBe(1)
    expect(page.skipped).toBe(1)
    expect(page).not.toHaveProperty('withWarnings')
    expect(page).not.toHaveProperty('shadowed')
  })

  it("shadowed copies are counted, inside one source and across sources, and are not 'skipped'", async () => {
    const page = await listSkills([
      new FileSystemSkillSource({ roots: [join(tmp, 'one'), join(tmp, 'two')] }),
      memorySource([reportSkill({ name: 'dup', tools: [] })], 'later'),
    ])
    expect(page.shadowed).toBe(2)
    expect(page).not.toHaveProperty('skipped')
    expect(page).not.toHaveProperty('withWarnings')
  })
})
