import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../../src/common/errors.js'
import type { TurnContext } from '../../../src/common/turn-context.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { applySessionState, sessionSkills } from '../../../src/manager/apply-session-state.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillManager } from '../../../src/manager/types.js'
import { FileSystemSkillSource, InMemorySkillSource } from '../../../src/sources/index.js'
import type { SkillProblem } from '../../../src/sources/types.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { codeOf } from '../../helpers/error-code.js'

const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-skill-copies-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

// Two copies of one id, as in the public mirrors: the first root's has no
// scripts, the second root's (one folder deeper) ships the script.
const files: Record<string, string> = {
  'a/excel-automation/SKILL.md':
    '---\nname: excel-automation\ndescription: Automates Excel (instructions only).\n---\nOpen the workbook by hand.\n',
  'b/vendor/excel-automation/SKILL.md':
    '---\nname: excel-automation\ndescription: Automates Excel with a report script.\n---\nRun `sh scripts/report.sh data.xlsx`.\n',
  'b/vendor/excel-automation/scripts/report.sh': 'echo "report for $1"\n',
}
for (const [path, text] of Object.entries(files)) {
  mkdirSync(join(base, path, '..'), { recursive: true })
  writeFileSync(join(base, path), text)
}
chmodSync(join(base, 'b/vendor/excel-automation/scripts/report.sh'), 0o755)
const roots = [join(base, 'a'), join(base, 'b')]
const COPY_REF = 'filesystem:2/vendor/excel-automation'

describe('a FileSystemSkillSource serves a shadowed copy by its copy key', () => {
  it('reports the copy with its row, and resolves it by { id, version, copy }', async () => {
    const source = new FileSystemSkillSource({ roots })
    const problems: SkillProblem[] = []
    const skills = await source.discoverBatch({ report: (p) => void problems.push(p) })
    expect(skills.map((s) => [s.id, s.copy])).toEqual([['excel-automation', '1/excel-automation']])
    const shadowed = problems.find((p) => p.code === 'E_SKILL_SHADOWED')
    expect(shadowed?.shadowedCopy?.copy).toBe('2/vendor/excel-automation')
    const copy = shadowed!.shadowedCopy!
    const descriptor = await source.descriptor(copy)
    expect(descriptor.description).toBe('Automates Excel with a report script.')
    expect(descriptor.copy).toBe('2/vendor/excel-automation')
    expect(await source.list(copy)).toEqual(['scripts/report.sh'])
    // The winner by id, as before; a copy key under another id, or a stale version, is not served.
    expect((await source.descriptor(skills[0]!)).description).toContain('instructions only')
    expect(await codeOf(source.descriptor({ ...copy, id: 'other' }))).toBe('E_SKILL_NOT_FOUND')
    expect(await codeOf(source.descriptor({ ...copy, version: 'v0' }))).toBe('E_SKILL_NOT_FOUND')
    source.close()
  })
})

describe.skipIf(!linux)('every copy of an id is reachable by its ref (real bubblewrap)', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  })
  afterAll(async () => sandbox?.dispose())

  async function setup(extra: { memory?: InMemorySkillSource } = {}) {
    const manager: SkillManager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots }), ...(extra.memory ? [extra.memory] : [])],
      gate: async () => undefined,
      defaultChannel: 'inline',
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    const ctx: TurnContext = manager.createTurnContext()
    for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
    const run = async (name: string, args: unknown) =>
      String(await ctx.tools.get(name)!.execute(args, ctx))
    const json = async (name: string, args: unknown) => JSON.parse(await run(name, args))
    return { manager, ctx, run, json }
  }

  it('list_skills shows the copy with its ref only for a query; load by ref, run its script, unload', async () => {
    const { manager, run, json } = await setup()
    const plain = await json('list_skills', {})
    expect(plain.skills.map((s: { ref: string }) => s.ref)).toEqual(['excel-automation'])
    expect(plain.shadowed).toBe(1)
    expect(plain.shadowedNote).toContain('with a query')
    const found = await json('list_skills', { query: 'excel' })
    expect(
      found.skills.map((s: { ref: string; shadowedBy?: string }) => [s.ref, s.shadowedBy]),
    ).toEqual([
      ['excel-automation', undefined],
      [COPY_REF, 'filesystem'],
    ])
    expect(JSON.stringify(found)).not.toContain(base)

    const loaded = await json('load_skill', { skill: COPY_REF })
    expect(loaded).toMatchObject({ id: 'excel-automation', ref: COPY_REF })
    expect(loaded.body).toContain('scripts/report.sh')
    expect(loaded.toolsAdded).toContain('run_excel_automation_script')
    expect(
      await run('run_excel_automation_script', { script: 'scripts/report.sh', args: ['q3'] }),
    ).toContain('report for q3')
    expect(
      await run('read_skill_file', { skill: 'excel-automation', path: 'scripts/report.sh' }),
    ).toContain('report for')
    expect((await json('list_loaded_skills', {})).copies).toEqual([
      { id: 'excel-automation', ref: COPY_REF },
    ])
    // The catalog says which copy is loaded; a second copy of the id is refused while one is.
    const after = await json('list_skills', { query: 'excel' })
    expect(after.skills.map((s: { loaded: boolean }) => s.loaded)).toEqual([false, true])
    expect(await codeOf(run('load_skill', { skill: 'excel-automation' }))).toBe(
      'E_SKILL_ALREADY_LOADED',
    )
    const unloaded = await json('unload_skill', { skill: COPY_REF })
    expect(unloaded.toolsRemoved).toContain('run_excel_automation_script')
    // The plain id still loads the winner, which ships no script.
    const winner = await json('load_skill', { skill: 'excel-automation' })
    expect(winner.ref).toBeUndefined()
    expect(winner.body).toContain('by hand')
    expect(await codeOf(run('load_skill', { skill: COPY_REF }))).toBe('E_SKILL_ALREADY_LOADED')
    await manager.dispose()
  })

  it('a session state keeps the ref: a restored manager loads the same copy; a refresh keeps it', async () => {
    const first = await setup()
    await first.json('load_skill', { skill: COPY_REF })
    const state = { skills: sessionSkills(first.manager) }
    expect(state.skills).toEqual([
      expect.objectContaining({ id: 'excel-automation', ref: COPY_REF }),
    ])
    const refreshed = await first.json('refresh_skills', {})
    expect(refreshed.outcomes).toEqual([
      expect.objectContaining({ id: 'excel-automation', outcome: 'unchanged' }),
    ])
    await first.manager.dispose()

    const second = await setup()
    await applySessionState(second.manager, second.ctx, state)
    expect(second.manager.loadedSkills()[0]?.ref).toBe(COPY_REF)
    expect(
      await second.run('run_excel_automation_script', { script: 'scripts/report.sh', args: ['x'] }),
    ).toContain('report for x')
    await second.manager.dispose()
  })

  it('a later source’s copy of an id gets a ref too', async () => {
    const memory = new InMemorySkillSource({ id: 'memory' })
    memory.add({
      name: 'excel-automation',
      description: 'Automates Excel from memory.',
      body: 'From memory.',
    })
    const { manager, json } = await setup({ memory })
    const found = await json('list_skills', { query: 'from memory' })
    expect(found.skills.map((s: { ref: string }) => s.ref)).toEqual(['memory:excel-automation'])
    expect((await json('load_skill', { skill: 'memory:excel-automation' })).body).toBe(
      'From memory.',
    )
    await manager.dispose()
  })

  it('a hostile ref gets a typed error that repeats neither it nor a host path', async () => {
    const { manager, ctx, run } = await setup()
    const hostile = [
      'filesystem:1/../../etc/passwd',
      'filesystem:2/vendor/excel-automation/..',
      'filesystem:2//excel-automation',
      'filesystem:2/vendor/excel automation',
      'filesystem:9/nowhere/excel-automation',
      '%2E%2E:excel-automation',
      `filesystem:2/${'%41'.repeat(170)}`,
      'a:b:c',
      '../../etc/passwd',
      'evil\u202e\nskill',
    ]
    for (const ref of hostile) {
      const err = await manager.load(ref, ctx).catch((e: unknown) => e)
      expect(SkillHostError.is(err, 'E_SKILL_NOT_FOUND'), ref).toBe(true)
      const message = (err as Error).message
      if (ref.includes(':')) expect(message).not.toContain(ref)
      expect(message).not.toContain(base)
      expect(message).not.toMatch(/[\n\u202e]/)
    }
    // Past the bound: the tool's schema refuses it, the manager's parser too.
    const long = `filesystem:2/${'x'.repeat(600)}`
    expect(await codeOf(run('load_skill', { skill: long }))).toBe('E_TOOL_INVALID_ARGS')
    const err = await manager.load(long, ctx).catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_SKILL_NOT_FOUND')).toBe(true)
    expect((err as Error).message).toContain('longer than 512')
    expect(manager.loaded()).toEqual([])
    await manager.dispose()
  })
})
