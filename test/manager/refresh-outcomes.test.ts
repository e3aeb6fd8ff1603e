import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { RefreshOutcome } from '../../src/manager/types.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { echoTool, memorySource, reportSkill } from '../helpers/manager-fixtures.js'

const SIDECAR =
  'scripts:\n  - name: go\n    path: scripts/go.sh\n    description: Goes.\n    interpreter: sh\n'

let root = ''
async function skill(name: string, body = `# ${name}\n`): Promise<void> {
  await mkdir(join(root, name, 'scripts'), { recursive: true })
  await writeFile(
    join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${name}.\n---\n${body}`,
  )
  await writeFile(join(root, name, 'skillhost.yaml'), SIDECAR)
  await writeFile(join(root, name, 'scripts/go.sh'), 'echo go\n')
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillhost-refresh-'))
  for (const name of ['same', 'edited', 'broken-md', 'no-script', 'bad-sidecar', 'gone'])
    await skill(name)
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function loadAll() {
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: root })],
    gate: async () => {},
  })
  const ctx = manager.createTurnContext()
  for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
  for (const id of ['same', 'edited', 'broken-md', 'no-script', 'bad-sidecar', 'gone'])
    await manager.load(id, ctx)
  return { manager, ctx }
}

async function breakSkills(): Promise<void> {
  await writeFile(
    join(root, 'edited', 'SKILL.md'),
    '---\nname: edited\ndescription: edited.\n---\n# Edited, longer now\n',
  )
  await writeFile(
    join(root, 'broken-md', 'SKILL.md'),
    '---\nname: broken-md\ndescription: [no longer valid YAML\n---\nbody\n',
  )
  await rm(join(root, 'no-script', 'scripts', 'go.sh'))
  await writeFile(join(root, 'bad-sidecar', 'skillhost.yaml'), 'scripts: [{ name: 1 }]\n')
  await rm(join(root, 'gone'), { recursive: true })
}

const byId = (outcomes: readonly RefreshOutcome[]) =>
  Object.fromEntries(outcomes.map((o) => [o.id, o]))

describe('refresh_skills says what happened to each loaded skill', () => {
  it('updated, unchanged, kept at the old version (with the reason), removed while loaded', async () => {
    const { manager, ctx } = await loadAll()
    await using _ = manager
    const versions = Object.fromEntries(manager.loadedSkills().map((s) => [s.id, s.version]))
    await breakSkills()
    const text = String(await ctx.tools.get('refresh_skills')!.execute({}, ctx))
    expect(text).not.toContain(root)
    const o = byId(JSON.parse(text).outcomes)
    expect(o.same).toEqual({ id: 'same', outcome: 'unchanged', version: versions.same })
    expect(o.edited).toMatchObject({ outcome: 'updated', from: versions.edited })
    expect(o['broken-md']).toMatchObject({
      outcome: 'kept',
      version: versions['broken-md'],
      code: 'E_SKILL_MANIFEST_INVALID',
    })
    expect(o['no-script']).toMatchObject({
      outcome: 'kept',
      version: versions['no-script'],
      code: expect.stringMatching(/^E_SKILL_/),
    })
    expect(o['bad-sidecar']).toMatchObject({
      outcome: 'kept',
      code: 'E_SKILL_MANIFEST_INVALID',
    })
    expect(o.gone).toEqual({ id: 'gone', outcome: 'removed', version: versions.gone })
    for (const kept of ['broken-md', 'no-script', 'bad-sidecar'])
      expect((o[kept] as { message: string }).message).toMatch(/loaded version stays/)
    // Kept and removed skills stay loaded at their old version.
    expect(new Set(manager.loaded())).toEqual(
      new Set(['same', 'edited', 'broken-md', 'no-script', 'bad-sidecar', 'gone']),
    )
    expect(manager.loadedSkills().find((s) => s.id === 'gone')?.version).toBe(versions.gone)
  })

  it('refresh (catalog only) says update-available instead of swapping; a skill filter narrows it', async () => {
    const { manager } = await loadAll()
    await using _ = manager
    await breakSkills()
    const all = byId((await manager.refresh()).outcomes)
    expect(all.edited).toMatchObject({ outcome: 'update-available' })
    expect(all.gone).toMatchObject({ outcome: 'removed' })
    expect(all['broken-md']).toMatchObject({ outcome: 'kept' })
    expect((await manager.refresh('same')).outcomes).toEqual([
      expect.objectContaining({ id: 'same', outcome: 'unchanged' }),
    ])
  })
})

it('a new version that fails to load is kept out, with the load error as the reason', async () => {
  const source = memorySource([reportSkill()])
  await using manager = await createSkillManager({ sources: [source], gate: async () => {} })
  const ctx = manager.createTurnContext()
  const loaded = await manager.load('reports', ctx)
  // The new version claims a lifecycle tool's name: discovery serves it, prepare refuses it.
  source.replace(reportSkill({ tools: [echoTool('load_skill')] }))
  const result = await manager.refreshAndProject(ctx)
  expect(result.outcomes).toEqual([
    {
      id: 'reports',
      outcome: 'kept',
      version: loaded.version,
      code: result.failed[0]!.code,
      message: expect.stringMatching(
        /failed to load \(E_[A-Z_]+: .*\), so the loaded version stays/,
      ),
    },
  ])
  expect(result.failed[0]!.code).toMatch(/^E_SKILL_/)
  expect(manager.loadedSkills()[0]!.version).toBe(loaded.version)
})
