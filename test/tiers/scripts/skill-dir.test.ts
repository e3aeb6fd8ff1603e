import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TurnContext } from '../../../src/common/turn-context.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/index.js'
import type { SkillManager } from '../../../src/manager/types.js'
import { FileSystemSkillSource } from '../../../src/sources/index.js'
import {
  createPathTranslator,
  createScriptSandbox,
  type ScriptSandbox,
} from '../../../src/tiers/scripts/index.js'
import { codeOf } from '../../helpers/error-code.js'

const linux = process.platform === 'linux'
const base = mkdtempSync(join(tmpdir(), 'skillhost-skill-dir-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

// Shaped like a public Claude Code skill that runs a script from its own folder.
for (const [path, text] of Object.entries({
  'SKILL.md':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, as a skill writes it
    '---\nname: chart\ndescription: Charts a CSV file.\n---\nRun `python3 ${CLAUDE_SKILL_DIR}/scripts/chart.py $0` and report the result.\n',
  'scripts/chart.py': 'import sys\nprint("charted", sys.argv[1], "from", __file__)\n',
})) {
  mkdirSync(join(base, 'skills', 'chart', path, '..'), { recursive: true })
  writeFileSync(join(base, 'skills', 'chart', path), text)
}

describe.skipIf(!linux)('the skill-dir placeholder and the script tool (real bubblewrap)', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 10 })
  })
  afterAll(async () => sandbox?.dispose())

  async function setup(scripts: Record<string, unknown> = {}) {
    const manager: SkillManager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
      gate: async () => undefined,
      defaultChannel: 'inline',
      scripts: { ...sandbox.config, undeclared: 'allow', ...scripts },
    })
    const ctx: TurnContext = manager.createTurnContext()
    for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
    const run = async (name: string, args: unknown) =>
      String(await ctx.tools.get(name)!.execute(args, ctx))
    return { manager, ctx, run }
  }

  it('the body names the sandbox path, and the script tool runs the path the model copies from it', async () => {
    const { manager, run } = await setup()
    const loaded = JSON.parse(await run('load_skill', { skill: 'chart', arguments: 'sales.csv' }))
    expect(loaded.body).toContain('Run `python3 /skill/scripts/chart.py sales.csv` and report')
    const out = await run('run_chart_script', {
      script: '/skill/scripts/chart.py',
      args: ['sales.csv'],
    })
    expect(out).toContain('charted sales.csv from /skill/scripts/chart.py')
    // The relative form still works; a mount path that leaves the skill is still refused.
    expect(await run('run_chart_script', { script: 'scripts/chart.py', args: ['x'] })).toContain(
      'charted x',
    )
    expect(
      await codeOf(run('run_chart_script', { script: '/skill/../etc/passwd', args: [] })),
    ).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    expect(
      await codeOf(run('run_chart_script', { script: '/skillx/scripts/chart.py', args: [] })),
    ).toBe('E_SKILL_SOURCE_PATH_REJECTED')
    await manager.dispose()
  })

  it('follows a deployer-chosen skill mount', async () => {
    const { manager, run } = await setup({
      translator: createPathTranslator({ skillMount: '/opt/skill' }),
    })
    const loaded = JSON.parse(await run('load_skill', { skill: 'chart' }))
    expect(loaded.body).toContain('python3 /opt/skill/scripts/chart.py $0')
    const out = await run('run_chart_script', {
      script: '/opt/skill/scripts/chart.py',
      args: ['m.csv'],
    })
    expect(out).toContain('charted m.csv from /opt/skill/scripts/chart.py')
    await manager.dispose()
  })
})
