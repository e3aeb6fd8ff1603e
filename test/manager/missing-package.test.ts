import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillHostError } from '../../src/common/errors.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { makeRig, onLinux, type Rig } from '../helpers/sandbox.js'

// Issue 37.4, the model's side: a script tool that fails on a missing python
// module says which python ran (as the sandbox sees it) and how the host
// provides the package, in the error the model reads; the error stays
// E_SKILL_SCRIPT_FAILED with the script's exit code.

let tmp = ''
let rig: Rig

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-missing-model-'))
  const dir = join(tmp, 'needs-pkg')
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(join(dir, 'SKILL.md'), '---\nname: needs-pkg\ndescription: T.\n---\n# T\n')
  await writeFile(join(dir, 'scripts/need.py'), 'import skillhost_no_such_module\n')
  await writeFile(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: need\n    path: scripts/need.py\n    description: Needs a package.\n    interpreter: python\n',
  )
  if (onLinux) rig = await makeRig()
})
afterAll(async () => {
  await rig?.cleanup()
  await rm(tmp, { recursive: true, force: true })
})

describe.skipIf(!onLinux)('a missing python module in the model-facing result', () => {
  it('the declared tool and run_<skill>_script both name the python and the fix', async () => {
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: tmp })],
      gate: async () => {},
      scripts: { ...rig.config, undeclared: 'allow' },
    })
    const ctx = manager.createTurnContext()
    await manager.load('needs-pkg', ctx)
    for (const [tool, args] of [
      ['run_needs_pkg_need', {}],
      ['run_needs_pkg_script', { script: 'scripts/need.py' }],
    ] as const) {
      const err = await ctx.tools
        .get(tool)!
        .execute(args, ctx)
        .then(
          () => undefined,
          (e: unknown) => e,
        )
      expect(SkillHostError.isInstance(err), tool).toBe(true)
      const e = err as SkillHostError
      expect(e.code).toBe('E_SKILL_SCRIPT_FAILED')
      expect(e.data.exitCode).toBe(1)
      expect(e.message).toMatch(
        /python module skillhost_no_such_module is not installed in the python that ran \(python \S* ?at \/usr\/bin\/python3 in the sandbox\)/,
      )
      expect(e.message).toContain('scripts.provision')
      expect(e.message).toContain('scripts.interpreters')
      expect(e.message).not.toContain(rig.base)
    }
  })

  it('load_skill then a call: the text the model reads carries it', async () => {
    await using manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: tmp })],
      gate: async () => {},
      scripts: rig.config,
    })
    const ctx = manager.createTurnContext()
    for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
    await ctx.tools.get('load_skill')!.execute({ skill: 'needs-pkg' }, ctx)
    const said = await ctx.tools
      .get('run_needs_pkg_need')!
      .execute({}, ctx)
      .then(String, (e: SkillHostError) => e.message)
    expect(said).toContain("No module named 'skillhost_no_such_module'")
    expect(said).toContain('python module skillhost_no_such_module is not installed')
  })
})
