import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/cli-main.js'
import type { CliIo } from '../../../src/cli/shared/cli-command.js'
import { forgeSkillTools } from '../../../src/lifecycle-tools.js'
import { createSkillManager } from '../../../src/manager/index.js'
import { FileSystemSkillSource } from '../../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../../src/tiers/scripts/index.js'
import { describeInterpreter, describePython } from '../../../src/tiers/scripts/internal.js'
import { onLinux } from '../../helpers/sandbox.js'

// Issue 23: "Say in the load result and in skillhost list --json which
// interpreter each script will run with."

const base = mkdtempSync(join(tmpdir(), 'skillhost-load-interp-'))
const root = join(base, 'skills')
const skill = join(root, 'interp')
mkdirSync(join(skill, 'scripts'), { recursive: true })
writeFileSync(
  join(skill, 'SKILL.md'),
  '---\nname: interp\ndescription: Says which python runs it.\n---\nRun scripts/who.py.\n',
)
writeFileSync(
  join(skill, 'skillhost.yaml'),
  'scripts:\n  - name: who\n    path: scripts/who.py\n    description: Prints the interpreter.\n    interpreter: python3\n',
)
writeFileSync(
  join(skill, 'scripts', 'who.py'),
  'import sys\nprint(sys.executable)\nprint("%d.%d.%d" % sys.version_info[:3])\n',
)
writeFileSync(join(skill, 'scripts', 'hello.sh'), 'echo hello\n')
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('describeInterpreter, the one rule for what a script runs with', () => {
  it('shows the host program to the host, and to the model only a path scripts see', () => {
    const interpreters = { tool: ['/srv/private/bin/tool'], sh: ['/bin/sh'] }
    expect(describeInterpreter('tool', interpreters)).toEqual({
      name: 'tool',
      program: '/srv/private/bin/tool',
    })
    // Bound where it lives, outside the system directories: a host path, never said.
    expect(describeInterpreter('tool', interpreters, {})).toEqual({ name: 'tool' })
    expect(describeInterpreter('sh', interpreters, {})).toEqual({ name: 'sh', program: '/bin/sh' })
    const view = { argv: ['/opt/skillhost/venv/bin/python3'], env: {}, version: '3.12.1' }
    expect(describeInterpreter('py', { py: ['/srv/venv/bin/python'] }, { py: view })).toEqual({
      name: 'py',
      program: '/opt/skillhost/venv/bin/python3',
      version: '3.12.1',
    })
  })
})

describe.skipIf(!onLinux)('load_skill says which interpreter each script tool runs with', () => {
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    // The default allow-list: the python PATH gives (a pyenv python here and in CI).
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 15 })
  })
  afterAll(async () => sandbox?.dispose())

  it('names program and version as the sandbox sees them; the script reports the same', async () => {
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [root] })],
      gate: async () => undefined,
      defaultChannel: 'inline',
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    try {
      const ctx = manager.createTurnContext()
      for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
      const text = String(await ctx.tools.get('load_skill')!.execute({ skill: 'interp' }, ctx))
      const loaded = JSON.parse(text)
      const python = sandbox.config.interpreters.python3?.[0] as string
      const layout = describePython(python)
      const view = sandbox.config.interpreterViews?.python3
      const program = view?.argv[0] ?? python
      const version = view?.version ?? layout?.version
      expect(version).toMatch(/^3\.\d+\.\d+$/)
      const sh = { name: 'sh', program: sandbox.config.interpreters.sh?.[0] }
      expect(loaded.interpreters).toEqual([
        { tool: 'run_interp_who', name: 'python3', program, version },
        { tool: 'run_interp_script', name: 'python3', program, version },
        { tool: 'run_interp_script', ...sh },
      ])
      // The host's own path of the interpreter never reaches the model.
      if (view !== undefined) {
        expect(program).toMatch(/^\/opt\/skillhost\//)
        expect(text).not.toContain(layout?.basePrefix as string)
      }
      expect(text).not.toContain(homedir())
      expect(text).not.toContain(base)

      // What the load result names is what runs.
      const ran = String(await ctx.tools.get('run_interp_who')!.execute({}, ctx))
      expect(ran).toContain(`--- stdout ---\n${program}\n${version}\n`)
    } finally {
      await manager.dispose()
    }
  })

  it('skillhost list --json names the same interpreter and version for the same tool', async () => {
    const out: string[] = []
    const io: CliIo = { stdout: (t) => void out.push(t), stderr: () => undefined }
    expect(await main(['list', '--json', '--no-default-roots', root], io)).toBe(0)
    const listed = JSON.parse(out.join('')).skills[0].interpreters.run_interp_who
    const python = sandbox.config.interpreters.python3?.[0] as string
    expect(listed).toEqual({
      name: 'python3',
      program: python,
      version: describePython(python)?.version,
    })
  })
})
