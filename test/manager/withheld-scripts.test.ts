import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import { UNAVAILABLE_TOOL_ENABLE } from '../../src/skill-model/unavailable-tool.js'
import { FileSystemSkillSource } from '../../src/sources/file-system-skill-source.js'
import { makeRig, onLinux, type Rig } from '../helpers/sandbox.js'

// Issue 37.6: under undeclared: 'deny' (the library default) a skill whose
// scripts are all undeclared gets no tool, and the load result says why and
// what would offer them, instead of an empty toolsAdded and nothing else.

let tmp = ''
let rig: Rig

/** A skill folder `name` holding `files` (path → text) besides its SKILL.md. */
async function skill(name: string, files: Record<string, string>): Promise<void> {
  const dir = join(tmp, name)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: Test.\n---\n# ${name}\n`)
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), text)
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skillhost-withheld-'))
  await skill('py-tools', { 'scripts/stats.py': 'print(1)\n', 'data/rows.csv': 'a,b\n' })
  // No extension: its shebang makes it a script, as the forge's scan would find.
  await skill('shebang-only', { 'bin/go': '#!/bin/sh\necho hi\n', README: 'notes\n' })
  // A script whose interpreter this host does not allow still counts: allowing
  // undeclared scripts would offer run_<skill>_script, which would refuse it by name.
  await skill('ruby-tool', { tool: '#!/usr/bin/env ruby\nputs 1\n' })
  await skill('docs-only', { 'notes.md': '# notes\n', 'data/table.csv': 'x\n' })
  // Every script declared: its tool is offered, nothing is withheld.
  await skill('all-declared', {
    'scripts/go.sh': 'echo go\n',
    'skillhost.yaml':
      'scripts:\n  - name: go\n    path: ./scripts/go.sh\n    description: Go.\n    interpreter: sh\n',
  })
  if (onLinux) rig = await makeRig()
})
afterAll(async () => {
  await rig?.cleanup()
  await rm(tmp, { recursive: true, force: true })
})

async function manager(undeclared?: 'allow' | 'deny') {
  const m = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: tmp })],
    gate: async () => {},
    scripts: { ...rig.config, ...(undeclared && { undeclared }) },
  })
  const ctx = m.createTurnContext()
  for (const t of forgeSkillTools(m)) ctx.tools.register(t)
  return { m, ctx }
}

describe.skipIf(!onLinux)("undeclared scripts withheld under 'deny'", () => {
  it('the load result names run_<skill>_script, the reason and the option that offers it', async () => {
    const { m, ctx } = await manager()
    await using _ = m
    for (const id of ['py-tools', 'shebang-only', 'ruby-tool']) {
      const loaded = await m.load(id, ctx)
      expect(loaded.tools, id).toEqual([])
      expect(loaded.unavailableTools, id).toEqual([
        {
          name: `run_${id.replace('-', '_')}_script`,
          reason: 'undeclared-off',
          enable: UNAVAILABLE_TOOL_ENABLE['undeclared-off'],
        },
      ])
    }
    expect(UNAVAILABLE_TOOL_ENABLE['undeclared-off']).toContain("scripts.undeclared: 'allow'")
    expect(UNAVAILABLE_TOOL_ENABLE['undeclared-off']).toContain('--no-undeclared-scripts')
  })

  it('the model sees it in load_skill, without host paths', async () => {
    const { m, ctx } = await manager('deny')
    await using _ = m
    const text = String(await ctx.tools.get('load_skill')!.execute({ skill: 'py-tools' }, ctx))
    const result = JSON.parse(text) as { toolsAdded?: string[]; toolsUnavailable: unknown[] }
    expect(result.toolsUnavailable).toEqual([
      {
        name: 'run_py_tools_script',
        reason: 'undeclared-off',
        enable: UNAVAILABLE_TOOL_ENABLE['undeclared-off'],
      },
    ])
    expect(text).not.toContain(tmp)
  })

  it('a skill that ships no script, or declares every one, gets no entry: nothing is withheld', async () => {
    const { m, ctx } = await manager()
    await using _ = m
    expect((await m.load('docs-only', ctx)).unavailableTools).toEqual([])
    const declared = await m.load('all-declared', ctx)
    expect(declared.tools).toEqual(['run_all_declared_go'])
    expect(declared.unavailableTools).toEqual([])
  })

  it("under 'allow' the tool is offered and nothing is reported unavailable", async () => {
    const { m, ctx } = await manager('allow')
    await using _ = m
    const loaded = await m.load('py-tools', ctx)
    expect(loaded.tools).toEqual(['run_py_tools_script'])
    expect(loaded.unavailableTools).toEqual([])
  })
})
