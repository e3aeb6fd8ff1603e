import { it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'
import { fillablePdf, SAMPLE_FORM } from '../helpers/fillable-pdf.js'

it('real anthropics pdf skill', async () => {
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
      console.log(`\n>>> ${name} ${JSON.stringify(args)}\n${r.slice(0, 1500)}`)
      return r
    } catch (e) {
      console.log(
        `\n>>> ${name} ${JSON.stringify(args)}\nERROR ${(e as Error & { code: string }).code}: ${(e as Error).message.slice(0, 1500)}`,
      )
      return ''
    }
  }
  console.log(
    m
      .catalog()
      .entries.map((e) => e.id)
      .join(' '),
  )
  await m.workspace!.put('input.pdf', fillablePdf(SAMPLE_FORM))
  const loaded = await show('load_skill', { skill: 'pdf' })
  void loaded
  await show('read_skill_file', {
    skill: 'pdf',
    path: 'forms.md',
    range: { startLine: 1, endLine: 5 },
  })
  await show('run_pdf_script', { script: 'scripts/check_fillable_fields', args: ['input.pdf'] })
  await show('run_pdf_script', { script: 'scripts/check_fillable_fields.py', args: ['input.pdf'] })
  const info = await show('run_pdf_script', {
    script: 'scripts/extract_form_field_info.py',
    args: ['input.pdf', 'field_info.json'],
  })
  void info
  const fields = JSON.parse(new TextDecoder().decode(await m.workspace!.get('field_info.json')))
  const values = fields.map((f: { field_id: string; page: number }) => ({
    field_id: f.field_id,
    page: f.page,
    value: 'Ada',
  }))
  await show('workspace_write', { path: 'field_values.json', content: JSON.stringify(values) })
  await show('run_pdf_script', {
    script: 'scripts/fill_fillable_fields.py',
    args: ['input.pdf', 'field_values.json', 'output.pdf'],
  })
  await show('run_pdf_script', {
    script: 'scripts/convert_pdf_to_images.py',
    args: ['output.pdf', 'pages'],
  })
  await show('workspace_list', {})
  await m.dispose()
  await sandbox.dispose()
}, 120_000)
