import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/create-skill-tools.js'
import { promptCommand } from '../../src/cli/prompt/prompt-command.js'
import type { Tool } from '../../src/common/tool.js'
import type { TurnContext } from '../../src/common/turn-context.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import {
  estimateTokens,
  renderAvailableSkills,
  SHORT_DESCRIPTION_CHARS,
} from '../../src/manager/render-available-skills.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { rejectsWith } from '../helpers/error-code.js'
import { memorySource, writeSkillRoot } from '../helpers/manager-fixtures.js'

const roots: string[] = []
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
})

const skills = (n: number, description = (i: number) => `Skill number ${i}.`) =>
  Array.from({ length: n }, (_, i) => ({
    name: `skill-${String(i).padStart(3, '0')}`,
    description: description(i),
  }))

async function call(tool: Tool | undefined, args: unknown, ctx: TurnContext): Promise<string> {
  return String(await tool?.execute(args, ctx))
}

describe('AI SDK catalog says what it does not show (issue 12 item 7)', () => {
  it('more skills than the limit: the block says how many are left out and how to find them', async () => {
    const root = await writeSkillRoot(skills(7))
    roots.push(root)
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    using st = createSkillTools({ manager, ctx, catalog: { limit: 3 } })
    const system = st.system()
    expect(system.match(/<skill>/g)).toHaveLength(3)
    expect(system).toContain(
      '<more_skills total="7" not_shown="4" names_only="0">7 skills in all: 4 not shown here.',
    )
    expect(system).toContain('Call list_skills with a query')
    // The note is inside the block.
    expect(system.indexOf('<more_skills')).toBeLessThan(system.indexOf('</available_skills>'))
  })

  it('when every skill fits, no note is added', async () => {
    const root = await writeSkillRoot(skills(3))
    roots.push(root)
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => {},
    })
    using st = createSkillTools({ manager, ctx: manager.createTurnContext(), catalog: true })
    expect(st.system().match(/<skill>/g)).toHaveLength(3)
    expect(st.system()).not.toContain('more_skills')
  })
})

describe('disable-model-invocation keeps a skill out of the model catalog (issue 12 item 7)', () => {
  async function hostOnlyRoot(): Promise<string> {
    const root = await writeSkillRoot(skills(2))
    roots.push(root)
    await mkdir(join(root, 'deploy'))
    await writeFile(
      join(root, 'deploy', 'SKILL.md'),
      '---\nname: deploy\ndescription: Deploys production.\ndisable-model-invocation: true\n---\n# Deploy\n',
    )
    return root
  }

  it('absent from <available_skills> and list_skills; load_skill refuses it; manager.load works', async () => {
    const root = await hostOnlyRoot()
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => {},
    })
    const ctx = manager.createTurnContext()
    using st = createSkillTools({ manager, ctx, catalog: { limit: 1 } })
    const system = st.system()
    expect(system).not.toContain('deploy')
    // Hidden skills are not counted as "more skills" the model could find.
    expect(system).toContain('<more_skills total="2" not_shown="1" names_only="0">')

    const [list, , , load] = forgeSkillTools(manager)
    const listed = JSON.parse(await call(list, {}, ctx)) as {
      skills: { id: string }[]
      total: number
    }
    expect(listed.skills.map((s) => s.id)).toEqual(['skill-000', 'skill-001'])
    expect(listed.total).toBe(2)
    expect(await call(list, { query: 'deploy' }, ctx)).not.toContain('"deploy"')

    const err = await rejectsWith(call(load, { skill: 'deploy' }, ctx), 'E_SKILL_NOT_FOUND')
    expect(err.message).toContain('list_skills')
    expect(manager.loaded()).toEqual([])
    // The model can still load an ordinary skill.
    expect(JSON.parse(await call(load, { skill: 'skill-000' }, ctx)).id).toBe('skill-000')

    // The host can.
    const loaded = await manager.load('deploy', ctx)
    expect(loaded.id).toBe('deploy')
    // The host's own view still lists it.
    expect(manager.search().entries.find((e) => e.id === 'deploy')?.disableModelInvocation).toBe(
      true,
    )
  })

  it('an in-memory skill can be host-only too', async () => {
    await using manager = await createSkillManager({
      sources: [
        memorySource([
          { name: 'secret', description: 'Host only.', body: 'x', disableModelInvocation: true },
          { name: 'open', description: 'For the model.', body: 'y' },
        ]),
      ],
      gate: async () => {},
    })
    expect(manager.search({ forModel: true }).entries.map((e) => e.id)).toEqual(['open'])
    expect(manager.search().entries.map((e) => e.id)).toEqual(['secret', 'open'])
  })

  it('skillhost prompt leaves it out', async () => {
    const root = await hostOnlyRoot()
    const out: string[] = []
    const code = await promptCommand.run(['--no-default-roots', root], {
      stdout: (t) => out.push(t),
      stderr: () => undefined,
    })
    expect(code).toBe(0)
    expect(out.join('').match(/<skill>/g)).toHaveLength(2)
    expect(out.join('')).not.toContain('<name>deploy</name>')
  })
})

describe('prompt --max-tokens uses the budget well and says what it cut (issue 12 item 7)', () => {
  const entries = (n: number, length: (i: number) => number) =>
    Array.from({ length: n }, (_, i) => ({
      name: `skill-${i}`,
      description: 'd'.repeat(length(i)),
      location: `/skills/skill-${i}/SKILL.md`,
    }))

  it('shortens no description when everything fits', () => {
    // 18 skills of ~300-character descriptions: about 1,600 tokens, under 2,000.
    const list = entries(18, (i) => 250 + i * 5)
    const out = renderAvailableSkills(list, { maxTokens: 2000 })
    expect(out.shortened).toBe(0)
    expect(out.dropped).toBe(0)
    expect(out.estimatedTokens).toBeLessThanOrEqual(2000)
    for (const e of list) expect(out.text).toContain(e.description)
  })

  it('shortens only the longest descriptions, and stays within the budget', () => {
    // 17 short descriptions and one of 1,000 characters: only the long one is cut.
    const list = entries(18, (i) => (i === 5 ? 1000 : 200))
    const full = renderAvailableSkills(list)
    const budget = full.estimatedTokens - 100
    const out = renderAvailableSkills(list, { maxTokens: budget })
    expect(out.estimatedTokens).toBeLessThanOrEqual(budget)
    expect(out.shortened).toBe(1)
    expect(out.dropped).toBe(0)
    expect(out.text.match(/<description>d{200}<\/description>/g)).toHaveLength(17)
    // The budget is used: the cut description keeps all but what did not fit.
    expect(out.estimatedTokens).toBeGreaterThan(budget - 10)
  })

  it('names skills without a description only when 160 characters each does not fit, and says so in the block', () => {
    const list = entries(30, () => 400)
    const out = renderAvailableSkills(list, { maxTokens: 600 })
    expect(out.namesOnly).toBeGreaterThan(0)
    expect(out.dropped).toBe(0)
    expect(estimateTokens(out.text)).toBeLessThanOrEqual(600)
    expect(out.text).toContain(
      `<more_skills total="30" not_shown="0" names_only="${out.namesOnly}">`,
    )
    expect(out.text).toContain('list_skills with a query')
    expect(out.text.match(/<skill>/g)).toHaveLength(30 - out.namesOnly)
    // The described keep at least the short length, cut evenly.
    expect(out.text).toMatch(new RegExp(`<description>d{${SHORT_DESCRIPTION_CHARS - 1},}…`))
  })

  it('the CLI reports drops on stderr too', async () => {
    const root = await writeSkillRoot(skills(20, (i) => `Skill ${i} ${'x'.repeat(300)}`))
    roots.push(root)
    const out: string[] = []
    const err: string[] = []
    const code = await promptCommand.run(['--no-default-roots', '--max-tokens', '500', root], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
    })
    expect(code).toBe(0)
    expect(estimateTokens(out.join('').trimEnd())).toBeLessThanOrEqual(500)
    expect(out.join('')).toMatch(/<more_skills total="20" not_shown="\d+" names_only="\d+">/)
    expect(err.join('')).toMatch(/of 20 skills.*skillhost list shows them all/)
  })
})
