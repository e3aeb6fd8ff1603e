import { describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import {
  applySessionState,
  sameSessionState,
  sessionSkills,
} from '../../src/manager/apply-session-state.js'
import { createSkillManager, MAX_SKILL_ARGUMENTS_LENGTH } from '../../src/manager/index.js'
import { splitSkillArguments, substituteSkillBody } from '../../src/manager/skill-arguments.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { codeOf } from '../helpers/error-code.js'

// Shaped like public Claude Code skills: a fix-issue command, a migration
// with positional arguments, and one that runs a script from its own folder.
// Claude Code's placeholders, spelled without tripping the template-string lint.
const SKILL_DIR = `\${CLAUDE_SKILL_DIR}`
const PLUGIN_ROOT = `\${CLAUDE_PLUGIN_ROOT}`
const OWN_DIR = `\${SKILLHOST_SKILL_DIR}`
const FIX_ISSUE = 'Fix GitHub issue $ARGUMENTS following our coding standards.\n'
const MIGRATE = 'Migrate the $0 component from $1 to $2.\nKeep $ARGUMENTS[0] working.\n'
const PLOT = `Run \`python ${SKILL_DIR}/scripts/plot.py data.csv\`.\n`
const NO_PLACEHOLDER = 'Summarize the pull request.\n'

const dir = { skillDir: '/skill' }

describe('substituteSkillBody', () => {
  it('fills $ARGUMENTS with the raw string as given', () => {
    expect(substituteSkillBody(FIX_ISSUE, { ...dir, arguments: '123 "high prio"' })).toBe(
      'Fix GitHub issue 123 "high prio" following our coding standards.\n',
    )
  })

  it('fills $N and $ARGUMENTS[N] with the shell-split words, 0-based', () => {
    expect(
      substituteSkillBody(MIGRATE, { ...dir, arguments: `SearchBar "React 17" 'Vue 3'` }),
    ).toBe('Migrate the SearchBar component from React 17 to Vue 3.\nKeep SearchBar working.\n')
  })

  it('leaves a missing positional as written', () => {
    expect(substituteSkillBody(MIGRATE, { ...dir, arguments: 'SearchBar React' })).toBe(
      'Migrate the SearchBar component from React to $2.\nKeep SearchBar working.\n',
    )
    expect(substituteSkillBody('$ARGUMENTS[3] $12', { ...dir, arguments: 'a b' })).toBe(
      '$ARGUMENTS[3] $12',
    )
  })

  it('appends ARGUMENTS: when the body names no $ARGUMENTS, and only for non-empty arguments', () => {
    expect(substituteSkillBody(NO_PLACEHOLDER, { ...dir, arguments: 'PR 42' })).toBe(
      'Summarize the pull request.\n\n\nARGUMENTS: PR 42',
    )
    expect(substituteSkillBody(NO_PLACEHOLDER, { ...dir, arguments: '' })).toBe(NO_PLACEHOLDER)
    // $N alone is not $ARGUMENTS: the raw string is appended as well.
    expect(substituteSkillBody('Open $0.', { ...dir, arguments: 'a.txt' })).toBe(
      'Open a.txt.\n\nARGUMENTS: a.txt',
    )
  })

  it('without arguments leaves every argument placeholder as written', () => {
    expect(substituteSkillBody(MIGRATE, dir)).toBe(MIGRATE)
    expect(substituteSkillBody(NO_PLACEHOLDER, dir)).toBe(NO_PLACEHOLDER)
  })

  it('never rescans a filled value', () => {
    expect(substituteSkillBody('[$ARGUMENTS] [$0]', { ...dir, arguments: `$1 ${SKILL_DIR}` })).toBe(
      `[$1 ${SKILL_DIR}] [$1]`,
    )
  })

  it('names the skill folder for the three skill-dir placeholders, with or without arguments', () => {
    const body = `${SKILL_DIR}/a ${PLUGIN_ROOT}/b ${OWN_DIR}/c $CLAUDE_SKILL_DIR`
    expect(substituteSkillBody(body, { skillDir: '/opt/s' })).toBe(
      '/opt/s/a /opt/s/b /opt/s/c $CLAUDE_SKILL_DIR',
    )
    expect(substituteSkillBody(PLOT, { ...dir, arguments: '' })).toBe(
      'Run `python /skill/scripts/plot.py data.csv`.\n',
    )
  })
})

describe('splitSkillArguments', () => {
  it('splits like a shell without expanding anything', () => {
    expect(splitSkillArguments(`  a  'b c' "d \\"e\\"" f\\ g $HOME '' `)).toEqual([
      'a',
      'b c',
      'd "e"',
      'f g',
      '$HOME',
      '',
    ])
    expect(splitSkillArguments('x"y z')).toEqual(['xy z'])
    expect(splitSkillArguments('')).toEqual([])
  })
})

function source() {
  return new InMemorySkillSource({
    skills: [
      { name: 'fix-issue', description: 'Fixes an issue.', body: FIX_ISSUE },
      { name: 'migrate', description: 'Migrates a component.', body: MIGRATE },
      { name: 'plot', description: 'Plots data.', body: PLOT },
    ],
  })
}

async function setup(src = source()) {
  const manager = await createSkillManager({
    sources: [src],
    gate: async () => undefined,
    defaultChannel: 'inline',
  })
  const ctx = manager.createTurnContext()
  for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
  const run = async (name: string, args: unknown) =>
    JSON.parse(String(await ctx.tools.get(name)!.execute(args, ctx)))
  return { manager, ctx, run, src }
}

describe('load_skill { skill, arguments }', () => {
  it('substitutes the arguments into the body the model gets, and reports them as loaded', async () => {
    const { manager, run } = await setup()
    const out = await run('load_skill', { skill: 'migrate', arguments: 'SearchBar React Vue' })
    expect(out.body).toBe(
      'Migrate the SearchBar component from React to Vue.\nKeep SearchBar working.\n',
    )
    expect(manager.loadedSkills()).toEqual([
      expect.objectContaining({ id: 'migrate', arguments: 'SearchBar React Vue' }),
    ])
    // Without arguments the body is as written, but the skill folder is named.
    expect((await run('load_skill', { skill: 'plot' })).body).toBe(
      'Run `python /skill/scripts/plot.py data.csv`.\n',
    )
    expect(manager.loadedSkills()[1]).not.toHaveProperty('arguments')
    await manager.dispose()
  })

  it('bounds arguments through the schema and the manager alike', async () => {
    const { manager, ctx, run } = await setup()
    const long = 'x'.repeat(MAX_SKILL_ARGUMENTS_LENGTH + 1)
    expect(await codeOf(run('load_skill', { skill: 'migrate', arguments: long }))).toBe(
      'E_TOOL_INVALID_ARGS',
    )
    expect(await codeOf(run('load_skill', { skill: 'migrate', arguments: 7 }))).toBe(
      'E_TOOL_INVALID_ARGS',
    )
    expect(await codeOf(manager.load('migrate', ctx, { arguments: long }))).toBe(
      'E_TOOL_INVALID_ARGS',
    )
    const ok = 'y'.repeat(MAX_SKILL_ARGUMENTS_LENGTH)
    expect((await run('load_skill', { skill: 'fix-issue', arguments: ok })).body).toContain(ok)
    await manager.dispose()
  })

  it('refuses to load a loaded skill again with other arguments', async () => {
    const { manager, ctx } = await setup()
    await manager.load('migrate', ctx, { arguments: 'A B C' })
    const other = manager.createTurnContext()
    expect(await codeOf(manager.load('migrate', other, { arguments: 'X' }))).toBe(
      'E_SKILL_ALREADY_LOADED',
    )
    expect(await codeOf(manager.load('migrate', other))).toBe('E_SKILL_ALREADY_LOADED')
    // The same arguments project the loaded record into the other turn.
    expect((await manager.load('migrate', other, { arguments: 'A B C' })).body).toContain('from B')
    await manager.dispose()
  })

  it('keeps the arguments when a refresh swaps in a new version', async () => {
    const { manager, ctx, src } = await setup()
    await manager.load('fix-issue', ctx, { arguments: '77' })
    src.replace({ name: 'fix-issue', description: 'Fixes an issue.', body: `v2: ${FIX_ISSUE}` })
    const result = await manager.refreshAndProject(ctx)
    expect(result.outcomes).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'fix-issue', outcome: 'updated' })]),
    )
    expect(manager.loadedSkills()[0]).toMatchObject({ arguments: '77' })
    await manager.dispose()
  })

  it('a restored session loads with the stored arguments and rebuilds the same body', async () => {
    const a = await setup()
    const first = await a.manager.load('migrate', a.ctx, { arguments: 'Nav Angular Svelte' })
    await a.manager.load('plot', a.ctx)
    const state = { skills: sessionSkills(a.manager) }
    expect(state.skills).toEqual([
      expect.objectContaining({ id: 'migrate', arguments: 'Nav Angular Svelte' }),
      expect.not.objectContaining({ arguments: expect.anything() }),
    ])
    // Arguments are part of what a session state says.
    expect(
      sameSessionState(state, {
        skills: state.skills.map((s) => ({ ...s, arguments: 'other' })),
      }),
    ).toBe(false)

    const b = await setup(a.src)
    await b.manager.load('migrate', b.ctx, { arguments: 'stale' })
    await applySessionState(b.manager, b.ctx, state)
    expect(sessionSkills(b.manager)).toEqual(state.skills)
    // Projecting the restored record into another turn shows the body it was rebuilt with.
    const again = await b.manager.load('migrate', b.manager.createTurnContext(), {
      arguments: 'Nav Angular Svelte',
    })
    expect(again.body).toBe(first.body)
    expect(first.body).toContain('from Angular to Svelte')
    await a.manager.dispose()
    await b.manager.dispose()
  })
})
