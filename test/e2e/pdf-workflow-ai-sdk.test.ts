import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { generateText, stepCountIs } from 'ai'
import { afterAll, describe, expect, it } from 'vitest'
import { createSkillTools } from '../../src/adapters/ai-sdk/index.js'
import { createSkillManager } from '../../src/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'
import { PDF_FORM_SKILL, REAL_SKILLS_ROOT } from '../helpers/pdf-form-fixture.js'
import {
  CALLS,
  copyIdOf,
  expectFilledPdf,
  INPUT_PDF,
  pathsBelow,
  RUN,
  requirePypdf,
  SKILL,
  sharedTempDir,
  treeListing,
  VERIFY_STDOUT,
  valuesFor,
  WORKSPACE_FILES,
} from '../helpers/pdf-workflow.js'
import {
  type ModelCall,
  offeredTools,
  type ScriptedStep,
  scriptedModel,
  systemText,
  toolResults,
} from '../helpers/scripted-model.js'

const linux = process.platform === 'linux'
const temp = sharedTempDir('skillhost-e2e-ai-sdk-')
afterAll(() => rmSync(temp, { recursive: true, force: true }))

/** The text of the latest result of `tool` the model was sent. */
const last = (c: ModelCall, tool: string): string =>
  toolResults(c)
    .filter((r) => r.tool === tool)
    .at(-1)?.text ?? ''

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

describe.skipIf(!linux)(
  'pdf-form workflow through the AI SDK adapter (scripted mock model)',
  () => {
    it('the model loads the skill, follows its body step by step, unloads it, and the filled PDF stays readable by id', async () => {
      const python = requirePypdf()
      const fixtureBefore = treeListing(PDF_FORM_SKILL)
      const base = join(temp, 'sandbox')
      mkdirSync(base)
      const sandbox = await createScriptSandbox({
        // The python that has pypdf (Debian's), not the one PATH would give (issue 23).
        interpreters: { python3: [python] },
        baseDir: base,
        maxTimeoutSeconds: 30,
        defaultTimeoutSeconds: 20,
      })
      try {
        await using manager = await createSkillManager({
          sources: [new FileSystemSkillSource({ roots: [REAL_SKILLS_ROOT] })],
          gate: async () => undefined,
          defaultChannel: 'inline',
          scripts: { ...sandbox.config, undeclared: 'allow' },
        })
        // The host received the user's PDF with the message and puts it in the workspace.
        await manager.workspace!.put('input.pdf', INPUT_PDF)
        const ctx = manager.createTurnContext()
        const skills = createSkillTools({ manager, ctx, catalog: true })

        const calls: ModelCall[] = []
        let outId: string | undefined
        const steps: ScriptedStep[] = [
          (c) => {
            expect(systemText(c)).toContain(SKILL)
            expect(offeredTools(c)).not.toContain(RUN)
            return [{ tool: 'load_skill', args: { skill: SKILL } }]
          },
          (c) => {
            // The body, inline in the load result and in the system prompt, says what to run.
            expect(last(c, 'load_skill')).toContain(
              'python scripts/extract_fields.py input.pdf fields.json',
            )
            expect(systemText(c)).toContain('python scripts/fill_fields.py')
            expect(offeredTools(c)).toContain(RUN)
            return [{ tool: RUN, args: CALLS.extract }]
          },
          (c) => {
            const id = copyIdOf(last(c, RUN), 'fields.json')
            expect(id).toBeDefined()
            return [{ tool: 'artifact_cat', args: { id } }]
          },
          (c) => {
            // The model reads the fields from the copy and writes the values it chose.
            const shown = last(c, 'artifact_cat')
            // The reader's first line names the range shown: `[artifact r_… lines 1-16 of 16]`.
            expect(shown).toMatch(/^\[artifact r_[0-9a-f]{16} lines 1-(\d+) of \1\]\n/)
            const json = shown.slice(shown.indexOf('\n') + 1)
            return [
              { tool: 'workspace_write', args: { path: 'values.json', content: valuesFor(json) } },
            ]
          },
          (c) => {
            expect(last(c, 'workspace_write')).toMatch(/^wrote \/work\/values\.json \(\d+ bytes\)$/)
            return [{ tool: RUN, args: CALLS.fill }]
          },
          (c) => {
            outId = copyIdOf(last(c, RUN), 'out.pdf')
            expect(outId).toBeDefined()
            return [{ tool: RUN, args: CALLS.verify }]
          },
          (c) => {
            expect(last(c, RUN)).toContain(`--- stdout ---\n${VERIFY_STDOUT}`)
            return [{ tool: 'unload_skill', args: { skill: SKILL } }]
          },
          (c) => {
            expect(offeredTools(c)).not.toContain(RUN)
            expect(systemText(c)).not.toContain('python scripts/fill_fields.py')
            return [{ tool: 'artifact_stat', args: { id: outId } }]
          },
          (c) => {
            expect(last(c, 'artifact_stat')).toContain('application/pdf')
            return `The form is filled: out.pdf (${outId}).`
          },
        ]
        const model = scriptedModel(
          steps.map((step) => (c: ModelCall) => {
            calls.push(c)
            return step(c)
          }),
        )
        const result = await generateText({
          model,
          tools: skills.tools,
          prepareStep: skills.prepareStep,
          system: skills.system(),
          prompt:
            'Please fill in the attached form (input.pdf) for Ada Lovelace, signed 2024-05-01.',
          stopWhen: stepCountIs(steps.length + 1),
        })
        skills.dispose()
        expect(calls).toHaveLength(steps.length)
        expect(result.text).toBe(`The form is filled: out.pdf (${outId}).`)
        // No step failed: every tool result reached the model as output, not as an error.
        for (const r of toolResults(calls.at(-1)!)) expect(r.type, r.text).not.toMatch(/^error/)
        expect(manager.loaded()).toEqual([])

        const bytes = await ctx.spool.get(outId!)
        expectFilledPdf(python, bytes!)

        expect((await manager.workspace!.list()).map((e) => e.path)).toEqual(WORKSPACE_FILES)
        const rel = (await manager.workspace!.path()).slice(base.length + 1)
        await until(() => pathsBelow(join(base, 'ws', 'skills')).length === 0)
        expect(pathsBelow(base).filter((p) => p === `${rel}/` || !p.startsWith(`${rel}/`))).toEqual(
          ['ws/', 'ws/scratch/', `${rel}/`, 'ws/skills/'],
        )
        expect(treeListing(PDF_FORM_SKILL)).toEqual(fixtureBefore)
      } finally {
        await sandbox.dispose()
      }
      expect(pathsBelow(base).filter((p) => !p.endsWith('/'))).toEqual([])
    })
  },
)
