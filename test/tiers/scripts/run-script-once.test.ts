import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSystemSkillSource } from '../../../src/index.js'
import type { SkillDescriptor, SkillRef } from '../../../src/sources/index.js'
import {
  createScriptSandbox,
  type ScriptSandbox,
  type SkillScriptConfig,
  scriptInterpreters,
} from '../../../src/tiers/scripts/index.js'
import { previewScriptTools, runScriptOnce } from '../../../src/tiers/scripts/internal.js'
import { codeOf } from '../../helpers/error-code.js'
import { ranResult } from '../../helpers/script-outcome.js'

const base = mkdtempSync(join(tmpdir(), 'skillhost-run-once-'))
// The sandbox user must traverse to the workspace folder a test gives.
chmodSync(base, 0o755)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const skillDir = join(base, 'skills', 'notes')
for (const [path, text] of Object.entries({
  'SKILL.md': '---\nname: notes\ndescription: Writes notes.\n---\nRun scripts/note.sh.\n',
  'skillhost.yaml':
    'scripts:\n  - name: note\n    path: scripts/note.sh\n    description: Writes a note.\n    interpreter: sh\n    params:\n      - { name: text, type: string, positional: true, required: true }\n',
  'scripts/note.sh': '#!/bin/sh\nprintf "%s" "$1" > note.txt\necho wrote\n',
  'scripts/echo.sh': '#!/bin/sh\necho "[$1]"\n',
  'scripts/tool.rb': '#!/usr/bin/env ruby\nputs 1\n',
})) {
  mkdirSync(join(skillDir, path, '..'), { recursive: true })
  writeFileSync(join(skillDir, path), text)
}

describe.skipIf(process.platform !== 'linux')('runScriptOnce', () => {
  let sandbox: ScriptSandbox
  let source: FileSystemSkillSource
  let ref: SkillRef
  let descriptor: SkillDescriptor
  beforeAll(async () => {
    sandbox = await createScriptSandbox()
    source = new FileSystemSkillSource({ roots: [join(base, 'skills')] })
    const [found] = await source.discoverBatch()
    ref = { id: found!.id, version: found!.version }
    descriptor = await source.descriptor(ref)
    return () => sandbox.dispose()
  })

  /** The sandbox's config, recording every skill copy made and removed. */
  function recording(): { config: SkillScriptConfig; made: string[]; removed: string[] } {
    const made: string[] = []
    const removed: string[] = []
    const ws = sandbox.config.workspace
    const config: SkillScriptConfig = {
      ...sandbox.config,
      workspace: {
        materialize: async (r, files, o) => {
          const root = await ws.materialize(r, files, o)
          made.push(root)
          return root
        },
        dispose: async (root) => {
          removed.push(root)
          await ws.dispose(root)
        },
        createScratch: () => ws.createScratch(),
        disposeScratch: (dir) => ws.disposeScratch(dir),
      },
    }
    return { config, made, removed }
  }

  it('runs a declared script with typed args in a folder given as /work, then removes the skill copy', async () => {
    const work = mkdtempSync(join(base, 'work-'))
    chmodSync(work, 0o777)
    const { config, made, removed } = recording()
    const declared = descriptor.scripts!.find((s) => s.name === 'note')!
    const result = await ranResult(
      runScriptOnce(config, {
        source,
        ref,
        call: { declared, args: { text: 'hello' } },
        workspaceDir: work,
      }),
    )
    expect(result).toMatchObject({ exitCode: 0, stdout: 'wrote\n', timedOut: false })
    expect(result.workspace?.changes).toMatchObject([{ change: 'created', path: 'note.txt' }])
    expect(readFileSync(join(work, 'note.txt'), 'utf8')).toBe('hello')
    expect(made).toHaveLength(1)
    expect(removed).toEqual(made)
    expect(existsSync(made[0]!)).toBe(false)
  })

  it('runs an undeclared file with literal argv, as run_<skill>_script would', async () => {
    const result = await ranResult(
      runScriptOnce(sandbox.config, {
        source,
        ref,
        call: { path: 'scripts/echo.sh', argv: ['a b'] },
      }),
    )
    expect(result).toMatchObject({ exitCode: 0, stdout: '[a b]\n' })
  })

  it('refuses a file whose interpreter is not allowed, and still removes the skill copy', async () => {
    const { config, made, removed } = recording()
    const call = { path: 'scripts/tool.rb', argv: [] }
    expect(await codeOf(ranResult(runScriptOnce(config, { source, ref, call })))).toBe(
      'E_SKILL_SCRIPT_INVALID_ARGS',
    )
    expect(made).toHaveLength(1)
    expect(removed).toEqual(made)
  })
})

describe('previewScriptTools', () => {
  const descriptor: SkillDescriptor = {
    id: 'notes',
    version: 'v1',
    name: 'notes',
    description: 'Writes notes.',
    body: '',
    scripts: [
      {
        name: 'note',
        path: 'scripts/note.sh',
        description: 'Writes a note.',
        interpreter: 'sh',
      },
      { name: 'gem', path: 'scripts/tool.rb', description: 'Ruby.', interpreter: 'ruby' },
    ],
  } as SkillDescriptor
  const interpreters = scriptInterpreters()

  it('names the tools a load would offer, and the declared ones it would not', async () => {
    const preview = await previewScriptTools(descriptor, {
      enabled: true,
      interpreters,
      undeclared: { dir: skillDir, files: ['scripts/echo.sh', 'SKILL.md'] },
    })
    expect(preview.declared).toEqual(['run_notes_note'])
    expect(preview.undeclared).toEqual(['run_notes_script'])
    expect(preview.unavailable.map((t) => t.name)).toEqual(['run_notes_gem'])
  })

  it('offers no run_<skill>_script without a runnable file, and nothing with scripts off', async () => {
    const none = await previewScriptTools(descriptor, {
      enabled: true,
      interpreters,
      undeclared: { dir: skillDir, files: ['SKILL.md'] },
    })
    expect(none.undeclared).toEqual([])
    const off = await previewScriptTools(descriptor, {
      enabled: false,
      interpreters,
      undeclared: { dir: skillDir, files: ['scripts/echo.sh'] },
    })
    expect(off).toMatchObject({ declared: [], undeclared: [] })
    expect(off.unavailable.map((t) => t.name)).toEqual(['run_notes_note', 'run_notes_gem'])
  })
})
