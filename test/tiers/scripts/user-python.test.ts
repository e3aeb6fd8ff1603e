import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createScriptSandbox,
  type ScriptSandbox,
  scriptInterpreters,
} from '../../../src/tiers/scripts/index.js'
import { prepareScriptInterpreters, runSkillScript } from '../../../src/tiers/scripts/internal.js'
import {
  describePython,
  describePythonAsync,
  resolveUserPython,
} from '../../../src/tiers/scripts/policy/user-python.js'
import { rejectsWith } from '../../helpers/error-code.js'
import { files, onLinux, script } from '../../helpers/sandbox.js'

const SYSTEM = ['/usr', '/bin', '/lib', '/lib64']
// The python a user of this machine gets from PATH, when it is not the system's.
const userPython = resolveUserPython(process.env.PATH, SYSTEM)
const userLayout = userPython === undefined ? undefined : describePython(userPython)
const nonSystem =
  userLayout !== undefined && !SYSTEM.some((d) => userLayout.basePrefix.startsWith(`${d}/`))
const NO_USER_PYTHON =
  'no python outside /usr on PATH (CI and this machine have pyenv; install one to run this)'

const PROBE =
  'import sys\nprint(sys.version.split()[0])\nprint(sys.prefix)\nprint(sys.executable)\n'

async function run(sandbox: ScriptSandbox, body: string, interpreter = 'python3') {
  const { workspace } = sandbox.config
  const root = await workspace.materialize({ id: 'py', version: '1' }, files({ 'p.py': body }))
  try {
    return await runSkillScript(sandbox.config, {
      skill: 'py',
      root,
      script: script({ path: 'p.py', interpreter }),
      args: {},
    })
  } finally {
    await workspace.dispose(root)
  }
}

describe('resolveUserPython (issue 23 part 1)', () => {
  it('probes without blocking as it probes blocking: the same answers, remembered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillhost-path-'))
    try {
      writeFileSync(join(dir, 'python3'), '#!/bin/sh\necho not-json\n', { mode: 0o755 })
      expect(await describePythonAsync(join(dir, 'python3'))).toBeUndefined()
      await prepareScriptInterpreters({ path: dir })
      expect(resolveUserPython(dir, SYSTEM)).toBeUndefined()
      if (userPython !== undefined)
        expect(await describePythonAsync(userPython)).toEqual(describePython(userPython))
      await prepareScriptInterpreters()
      expect(scriptInterpreters()).toEqual(scriptInterpreters())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('takes python3 from PATH, asks a non-system one where it lives, and skips relative entries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillhost-path-'))
    try {
      expect(resolveUserPython(`relative/bin:${dir}`, SYSTEM)).toBeUndefined()
      expect(resolveUserPython('/usr/bin', SYSTEM)).toBe('/usr/bin/python3')
      // A program that is no python answers nonsense: no interpreter, so the caller falls back.
      writeFileSync(join(dir, 'python3'), '#!/bin/sh\necho not-json\n', { mode: 0o755 })
      expect(resolveUserPython(dir, SYSTEM)).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!nonSystem)('turns a pyenv shim into the interpreter it runs', () => {
    expect(userPython).toBe(userLayout?.executable)
    expect(userPython).not.toMatch(/shims/)
    expect(scriptInterpreters().python3).toEqual([userPython])
    expect(scriptInterpreters({}, { path: null }).python3).toEqual(['/usr/bin/python3'])
    // The deployer's choice keeps priority over PATH.
    expect(scriptInterpreters({ python: '/usr/bin/python3' }).python3).toEqual(['/usr/bin/python3'])
  })
})

describe.skipIf(!onLinux || !nonSystem)(
  `the user's python in the sandbox (${NO_USER_PYTHON})`,
  () => {
    let sandbox: ScriptSandbox
    let dir: string
    let venv: string
    beforeAll(async () => {
      // A venv in a 0700 folder: the sandbox user could not even enter it by path.
      dir = mkdtempSync(join(tmpdir(), 'skillhost-venv-'))
      chmodSync(dir, 0o700)
      venv = join(dir, 'venv')
      execFileSync(userPython as string, ['-m', 'venv', '--without-pip', venv])
      const lib = join(venv, 'lib')
      const site = join(lib, readdirSync(lib)[0] as string, 'site-packages')
      mkdirSync(site, { recursive: true })
      writeFileSync(join(site, 'only_in_venv.py'), 'ANSWER = 42\n')
      sandbox = await createScriptSandbox({
        interpreters: scriptInterpreters({ venvpy: join(venv, 'bin', 'python') }),
      })
    })
    afterAll(async () => {
      await sandbox?.dispose()
      rmSync(dir, { recursive: true, force: true })
    })

    it('runs python3 as the user has it, from a neutral path, wherever it lives', async () => {
      const r = await run(sandbox, PROBE)
      expect(r.stderr).toBe('')
      const [version, prefix, executable] = r.stdout.trim().split('\n')
      expect(version).toBe(userLayout?.version)
      expect(prefix).toBe(`/opt/skillhost/python/${userLayout?.version}`)
      expect(executable?.startsWith(`${prefix}/bin/`)).toBe(true)
      expect(sandbox.config.interpreterViews?.python3?.version).toBe(userLayout?.version)
    })

    it('runs a venv made in a 0700 folder, with its own packages and no host path shown', async () => {
      const r = await run(
        sandbox,
        'import sys, only_in_venv\nprint(sys.prefix, sys.prefix != sys.base_prefix, only_in_venv.ANSWER)\nprint(only_in_venv.__file__)\n',
        'venvpy',
      )
      expect(r.stderr).toBe('')
      const [first, file] = r.stdout.trim().split('\n')
      expect(first).toBe('/opt/skillhost/venv True 42')
      expect(file).toMatch(
        /^\/opt\/skillhost\/venv\/lib\/python3\.\d+\/site-packages\/only_in_venv\.py$/,
      )
      expect(r.stdout).not.toContain(dir)
    })

    it('a traceback names sandbox paths, not the host installation', async () => {
      const r = await run(sandbox, 'import json\njson.loads("{")\n')
      expect(r.exitCode).not.toBe(0)
      expect(r.stderr).toContain('/opt/skillhost/python/')
      expect(r.stderr).not.toContain(userLayout?.basePrefix as string)
    })

    it('a deny entry over the installation refuses the setup', async () => {
      await rejectsWith(
        createScriptSandbox({ denyRead: [userLayout?.basePrefix as string] }),
        'E_SKILL_SCRIPT_POLICY_WIDENED',
      )
    })
  },
)
