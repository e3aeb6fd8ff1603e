import { it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'

it('real anthropics skills: skill-creator, docx', async () => {
  const sandbox = await createScriptSandbox({ maxTimeoutSeconds: 60, defaultTimeoutSeconds: 30 })
  const m = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: ['/work/real/anthropics/skills'] })],
    gate: async () => undefined,
    defaultChannel: 'auto',
    scripts: { ...sandbox.config, undeclared: 'allow' },
  })
  const ctx = m.createTurnContext()
  for (const t of forgeSkillTools(m)) ctx.tools.register(t)
  const show = async (name: string, args: unknown) => {
    try {
      const r = String(await ctx.tools.get(name)!.execute(args, ctx))
      console.log(`\n>>> ${name} ${JSON.stringify(args)}\n${r.slice(0, 900)}`)
      return r
    } catch (e) {
      console.log(
        `\n>>> ${name} ${JSON.stringify(args)}\nERROR ${(e as Error & { code: string }).code}: ${(e as Error).message.slice(0, 900)}`,
      )
      return ''
    }
  }
  const l = JSON.parse(await show('load_skill', { skill: 'skill-creator' }))
  console.log(l.filesTotal, l.files?.slice(0, 5))
  await show('workspace_write', {
    path: 'my-skill/SKILL.md',
    content: '---\nname: my-skill\ndescription: does things\n---\n# Hi\n',
  })
  await show('run_skill_creator_script', {
    script: 'scripts/quick_validate.py',
    args: ['my-skill'],
  })
  await show('run_skill_creator_script', {
    script: 'scripts/package_skill.py',
    args: ['my-skill', 'dist'],
  })
  const d = JSON.parse(await show('load_skill', { skill: 'docx' }))
  console.log(d.filesTotal, ctx.tools.get('run_docx_script')?.description.slice(0, 600))
  await show('run_docx_script', { script: 'scripts/office/unpack.py', args: ['--help'] })
  await show('unload_skill', { skill: 'docx' })
  await show('read_skill_file', { skill: 'docx', path: 'SKILL.md' })
  await show('workspace_list', {})
  await m.dispose()
  await sandbox.dispose()
}, 120_000)
