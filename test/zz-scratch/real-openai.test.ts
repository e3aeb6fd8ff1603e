import { it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'

it('real openai skill-creator', async () => {
  const sandbox = await createScriptSandbox({ maxTimeoutSeconds: 60, defaultTimeoutSeconds: 30 })
  const m = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: ['/work/real/openai/skills'] })],
    gate: async () => undefined,
    defaultChannel: 'auto',
    scripts: { ...sandbox.config, undeclared: 'allow' },
  })
  const ctx = m.createTurnContext()
  for (const t of forgeSkillTools(m)) ctx.tools.register(t)
  const show = async (name: string, args: unknown) => {
    try {
      const r = String(await ctx.tools.get(name)!.execute(args, ctx))
      console.log(`\n>>> ${name} ${JSON.stringify(args)}\n${r.slice(0, 700)}`)
    } catch (e) {
      console.log(
        `\n>>> ${name} ${JSON.stringify(args)}\nERROR ${(e as Error & { code: string }).code}: ${(e as Error).message.slice(0, 700)}`,
      )
    }
  }
  await show('load_skill', { skill: 'skill-creator' })
  await show('run_skill_creator_script', {
    script: 'scripts/init_skill.py',
    args: ['my-tool', '--path', 'skills'],
  })
  await show('run_skill_creator_script', {
    script: 'scripts/quick_validate.py',
    args: ['skills/my-tool'],
  })
  await show('run_skill_creator_script', {
    script: 'scripts/package_skill.py',
    args: ['skills/my-tool', 'out'],
  })
  await show('load_skill', { skill: 'gh-fix-ci' })
  await show('run_gh_fix_ci_script', { script: 'scripts/inspect_pr_checks.py', args: ['--help'] })
  await m.dispose()
  await sandbox.dispose()
}, 120_000)
