import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseSkillLock } from '../../src/sources/index.js'
import {
  createScriptSandbox,
  type PinnedPackage,
  scriptInterpreters,
} from '../../src/tiers/scripts/index.js'
import { lockPins, runSkillScript } from '../../src/tiers/scripts/internal.js'
import { codeOf } from '../helpers/error-code.js'
import { PROBE_SKILL, probeWheelFolder } from '../helpers/probe-wheel.js'
import { runCli } from '../helpers/run-cli.js'
import { files, onLinux, script } from '../helpers/sandbox.js'
import { cacheWithInstaller } from '../helpers/shared-installer.js'

const PYTHON = scriptInterpreters().python3?.[0]

const cli = runCli

describe.skipIf(!onLinux || PYTHON === undefined)(
  'skillhost env and run --provision (issue 23 part 2)',
  () => {
    let dir: string
    let skill: string
    let wheels: string
    let cache: string
    beforeAll(async () => {
      ;({ dir, wheels, skill } = probeWheelFolder(PYTHON as string, 'skillhost-env-cli-', {
        ...PROBE_SKILL,
        path: 'probe',
      }))
      // Every cache here starts with the run's pip installer (helpers/shared-installer.ts):
      // the subjects are the sets' builds and rebuilds.
      cache = await cacheWithInstaller(join(dir, 'cache'), PYTHON as string)
    }, 120_000)
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    it('run without --provision names the missing package and the command; env builds it; run --provision uses it', async () => {
      const without = await cli(['run', skill, 'scripts/use.py'])
      expect(without.code).not.toBe(0)
      expect(without.stderr).toContain('skillhost-probe-pkg')
      expect(without.stderr).toContain('skillhost env')
      const built = await cli(['env', skill, '--find-links', wheels, '--env-cache', cache])
      // The build is told on stderr while it runs (issue 37.8): one start, one end.
      const lines = built.stderr.split('\n').filter((l) => l !== '')
      expect(lines).toHaveLength(2)
      expect(lines[0]).toBe(
        '[skillhost env: building a python environment for skillhost-probe-pkg (1 requirement); calls that need it wait]',
      )
      expect(lines[1]).toMatch(
        /^\[skillhost env: built the environment for skillhost-probe-pkg in \d+\.\d s\]$/,
      )
      expect(built.code).toBe(0)
      expect(built.stdout).toMatch(
        /^scripts\/use\.py: env [0-9a-f]{32} \(skillhost-probe-pkg\) -> skillhost-probe-pkg==1\.0\.0\n$/,
      )
      // The same set again: found in the cache, no build (counted: no build line at all).
      const again = await cli(['env', skill, '--find-links', wheels, '--env-cache', cache])
      expect(again.stderr).toBe('')
      expect(again.stdout).toBe(built.stdout)
      // No index given to run: the env built ahead is found in the cache.
      const ran = await cli(['run', skill, 'scripts/use.py', '--provision', '--env-cache', cache])
      expect(ran.stderr).toBe('')
      expect(ran.stdout).toBe('from-the-wheel\n')
      expect(ran.code).toBe(0)
    }, 120_000)

    it('env --lock pins versions and wheel hashes; a locked rebuild installs exactly them', async () => {
      const lockPath = join(dir, 'skills.lock.json')
      expect((await cli(['lock', '--out', lockPath, dir])).code).toBe(0)
      const r = await cli([
        'env',
        skill,
        '--find-links',
        wheels,
        '--env-cache',
        cache,
        '--lock',
        lockPath,
      ])
      expect(r.code).toBe(0)
      const text = readFileSync(lockPath, 'utf8')
      const entry = JSON.parse(text).skills.probe
      expect(entry.environments).toEqual([
        {
          requirements: ['skillhost-probe-pkg'],
          packages: [
            {
              name: 'skillhost-probe-pkg',
              version: '1.0.0',
              sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
            },
          ],
        },
      ])
      const lock = parseSkillLock(text)
      const rebuild = async (pins: Map<string, readonly PinnedPackage[]>) => {
        const sandbox = await createScriptSandbox({
          provision: {
            cacheDir: await cacheWithInstaller(
              join(mkdtempSync(join(dir, 'fresh-')), 'cache'),
              PYTHON as string,
            ),
            index: { findLinks: wheels },
            pins,
          },
        })
        const root = await sandbox.config.workspace.materialize(
          { id: 'probe', version: '1' },
          files({ 'use.py': readFileSync(join(skill, 'scripts', 'use.py'), 'utf8') }),
        )
        try {
          return await runSkillScript(sandbox.config, {
            skill: 'probe',
            root,
            script: script({ path: 'use.py', interpreter: 'python3' }),
            args: {},
          })
        } finally {
          await sandbox.dispose()
        }
      }
      expect((await rebuild(lockPins(lock))).stdout).toBe('from-the-wheel\n')
      // A wheel that is not the one pinned is refused (--require-hashes).
      const tampered = new Map(
        [...lockPins(lock)].map(([k, v]) => [k, v.map((p) => ({ ...p, sha256: '0'.repeat(64) }))]),
      )
      expect(await codeOf(rebuild(tampered))).toBe('E_SKILL_NOT_PINNED')
    }, 180_000)

    it('--find-links and --index-url exclude each other', async () => {
      const r = await cli([
        'env',
        skill,
        '--find-links',
        wheels,
        '--index-url',
        'https://x.example/simple',
      ])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('not both')
    })
  },
)

describe('skillhost env --help and flags (issue 40.8)', () => {
  it('lists only what env honours, in its own words, and refuses a flag it would ignore', async () => {
    const help = await cli(['env', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('--interpreter python=PATH')
    expect(help.stdout).not.toContain('NAME=PATH')
    expect(help.stdout).not.toContain('--read-path')
    expect(help.stdout).not.toContain('with --provision')
    for (const flag of ['--find-links DIR', '--index-url URL', '--env-cache DIR', '--lock FILE'])
      expect(help.stdout).toContain(flag)
    const readPath = await cli(['env', '--read-path', tmpdir(), 'some-skill'])
    expect(readPath).toMatchObject({ code: 2, stdout: '' })
    expect(readPath.stderr).toContain('skillhost env: unknown option --read-path')
  })
})
