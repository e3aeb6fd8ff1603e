import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { TurnContext } from '../../src/index.js'
import { createSkillManager, forgeSkillTools } from '../../src/index.js'
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

const linux = process.platform === 'linux'

/** Polls `check` between turns of the event loop until it holds; the test timeout bounds it. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}
const temp = sharedTempDir('skillhost-e2e-manager-')
afterAll(() => rmSync(temp, { recursive: true, force: true }))

describe.skipIf(!linux)(
  'pdf-form workflow through the manager (real bubblewrap, real pypdf)',
  () => {
    it('extract → the model writes values.json → fill → verify; out.pdf outlives the skill; nothing leaves the workspace', async () => {
      const python = requirePypdf()
      const fixtureBefore = treeListing(PDF_FORM_SKILL)
      // The sandbox's whole base lives in a folder of ours, so we can see every file it made.
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
        const ctx = manager.createTurnContext()
        for (const tool of forgeSkillTools(manager)) ctx.tools.register(tool)
        const call = async (c: TurnContext, name: string, args: unknown): Promise<string> => {
          const tool = c.tools.get(name)
          expect(tool, `${name} is offered`).toBeDefined()
          const out = await tool!.execute(args, c)
          return typeof out === 'string' ? out : JSON.stringify(out)
        }

        // The host received the user's file and puts it in the conversation's workspace.
        const workspace = manager.workspace!
        await workspace.put('input.pdf', INPUT_PDF)
        const wsPath = await workspace.path()

        const loaded = JSON.parse(await call(ctx, 'load_skill', { skill: SKILL }))
        expect(loaded.toolsAdded).toEqual([RUN])
        expect(loaded.body).toContain('python scripts/extract_fields.py input.pdf fields.json')
        expect(ctx.tools.get(RUN)!.description).toContain('scripts/fill_fields.py')

        const extracted = await call(ctx, RUN, CALLS.extract)
        expect(extracted).toMatch(/^exit code 0; /)
        expect(extracted).toContain('2 fields written to fields.json')
        const fieldsId = copyIdOf(extracted, 'fields.json')
        expect(fieldsId).toBeDefined()
        const fieldsJson = new TextDecoder().decode(await ctx.spool.get(fieldsId!))
        expect(JSON.parse(fieldsJson).map((f: { name: string }) => f.name)).toEqual([
          'full_name',
          'signed_on',
        ])

        // The model writes the values through its workspace tool.
        const values = valuesFor(fieldsJson)
        expect(await call(ctx, 'workspace_write', { path: 'values.json', content: values })).toBe(
          `wrote /work/values.json (${values.length} bytes)`,
        )

        const filled = await call(ctx, RUN, CALLS.fill)
        expect(filled).toContain('filled 2 fields into out.pdf')
        const outId = copyIdOf(filled, 'out.pdf')
        expect(outId).toBeDefined()
        // The call names what it changed: out.pdf only (its inputs were read, not written).
        expect(filled).toContain('--- workspace /work: 1 file(s) changed ---')

        const verified = await call(ctx, RUN, CALLS.verify)
        expect(verified).toContain(`--- stdout ---\n${VERIFY_STDOUT}`)
        expect(verified).toContain('--- workspace /work: 0 file(s) changed ---')

        expect(JSON.parse(await call(ctx, 'unload_skill', { skill: SKILL }))).toMatchObject({
          id: SKILL,
          toolsRemoved: [RUN],
        })
        expect(ctx.tools.has(RUN)).toBe(false)

        // The copy outlives the skill: by the reader tool and by the spool.
        const stat = await call(ctx, 'artifact_stat', { id: outId })
        expect(stat).toContain(outId!)
        const bytes = await ctx.spool.get(outId!)
        expect(bytes, 'the copy is still in the spool').toBeDefined()
        expectFilledPdf(python, bytes!)
        expect(Buffer.from(bytes!).equals(Buffer.from(await workspace.get('out.pdf')))).toBe(true)

        // Every file stayed inside the workspace: the sandbox's base holds the
        // workspace and nothing else once the skill is gone, and the skill's
        // own folder is exactly as committed.
        expect((await workspace.list()).map((e) => e.path)).toEqual(WORKSPACE_FILES)
        const rel = wsPath.slice(base.length + 1)
        // Unload retires the skill's read-only copy once its calls drain; wait for that.
        await until(() => pathsBelow(join(base, 'ws', 'skills')).length === 0)
        // What is left besides the workspace's files: the folders that hold them, and the emptied skills folder.
        expect(rel).toMatch(/^ws\/scratch\/call-[^/]+$/)
        expect(pathsBelow(base).filter((p) => p === `${rel}/` || !p.startsWith(`${rel}/`))).toEqual(
          ['ws/', 'ws/scratch/', `${rel}/`, 'ws/skills/'],
        )
        expect(treeListing(PDF_FORM_SKILL)).toEqual(fixtureBefore)
      } finally {
        await sandbox.dispose()
      }
      // The private workspace is removed with the manager; the base holds no file.
      expect(pathsBelow(base).filter((p) => !p.endsWith('/'))).toEqual([])
    })
  },
)
