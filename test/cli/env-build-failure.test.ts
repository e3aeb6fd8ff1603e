import { execFile } from 'node:child_process'
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionBuildLine } from '../../src/cli/shared/provision-build-line.js'
import { renderError, SkillHostError } from '../../src/common/index.js'
import { buildFailureCause } from '../../src/tiers/scripts/deps/env-build-failure.js'
import { scriptInterpreters } from '../../src/tiers/scripts/index.js'
import { provisionedInterpreter, type Requirement } from '../../src/tiers/scripts/internal.js'
import { probeWheelFolder } from '../helpers/probe-wheel.js'
import { runCli } from '../helpers/run-cli.js'
import { onLinux } from '../helpers/sandbox.js'
import { cacheWithInstaller } from '../helpers/shared-installer.js'
import { ROOT } from '../helpers/spawn-serve.js'

// Issue 40 item 4: a pip failure is E_SKILL_ENV_BUILD_FAILED with a one-line
// cause (which package, where pip looked), pip's whole output in the env
// cache's logs for a person, and neither in the model's message. Offline: pip
// runs with --no-index --find-links over a folder holding one probe wheel.
const PYTHON = scriptInterpreters().python3?.[0]
const ABSENT = 'skillhost-absent-pkg'

/** The built `skillhost` binary, as a user runs it. */
function skillhost(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe.skipIf(!onLinux || PYTHON === undefined)('a pip failure has its own code', () => {
  let dir: string
  let wheels: string
  let skill: string
  beforeAll(() => {
    ;({ dir, wheels, skill } = probeWheelFolder(PYTHON as string, 'skillhost-env-fail-', {
      path: 'absent',
      name: 'absent',
      description: 'Needs a package no index has.',
      use: `# /// script\n# dependencies = ["skillhost-probe-pkg", "${ABSENT}>=2"]\n# ///\nprint(1)\n`,
    }))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // Each cache starts with the run's pip installer (helpers/shared-installer.ts): the subject
  // is a set's failed build.

  it('skillhost env: one line naming the package and the folder, the log path, the prefix once', async () => {
    const cache = await cacheWithInstaller(join(dir, 'cache-env'), PYTHON as string)
    const r = await skillhost(['env', skill, '--find-links', wheels, '--env-cache', cache])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    // The build's progress lines come first ([skillhost env: building …]), then one error line.
    const lines = r.stderr.trimEnd().split('\n')
    const progress = lines.slice(0, -1)
    expect(progress.every((l) => /^\[skillhost env: .*\]$/.test(l))).toBe(true)
    expect(progress.join('\n')).not.toContain('E_SKILL_ENV_BUILD_FAILED')
    const line = lines.at(-1) as string
    expect(line.startsWith('skillhost env: E_SKILL_ENV_BUILD_FAILED: ')).toBe(true)
    expect(line.match(/skillhost env:/g)).toHaveLength(1)
    expect(line).toContain(
      `pip found no wheel of '${ABSENT}' that fits in the wheel folder ${wheels}`,
    )
    expect(line).not.toContain('check disk space')
    const log = /pip's full log: (\S+\.log)$/.exec(line)?.[1] as string
    expect(log.startsWith(join(cache, 'logs'))).toBe(true)
    // The whole output is there for a person, owner-only.
    expect(readFileSync(log, 'utf8')).toContain(`No matching distribution found for ${ABSENT}`)
    expect(statSync(log).mode & 0o077).toBe(0)
  }, 120_000)

  it('run --provision: the same code, in text and as JSON; the failed build line does not repeat it', async () => {
    const cache = await cacheWithInstaller(join(dir, 'cache-run'), PYTHON as string)
    const flags = ['--provision', '--find-links', wheels, '--env-cache', cache]
    const text = await runCli(['run', skill, 'scripts/use.py', ...flags])
    expect(text.code).not.toBe(0)
    const last = text.stderr.trimEnd().split('\n').pop() as string
    expect(last).toMatch(/^skillhost run: E_SKILL_ENV_BUILD_FAILED: the environment for /)
    expect(last).toContain(`'${ABSENT}'`)
    expect(text.stderr.match(/pip's full log/g)).toHaveLength(1)
    const json = await runCli(['run', '--json', skill, 'scripts/use.py', ...flags])
    expect(json.stderr).toBe('')
    const error = JSON.parse(json.stdout).error
    expect(error.code).toBe('E_SKILL_ENV_BUILD_FAILED')
    expect(error.message).toContain(`'${ABSENT}'`)
  }, 120_000)

  it('the library: the model sees neither the package nor the log; serve logs the cause and the log', async () => {
    const cache = await cacheWithInstaller(join(dir, 'cache-lib'), PYTHON as string)
    const requirements: Requirement[] = [
      { name: ABSENT, text: `${ABSENT}>=2` },
      { name: 'skillhost-probe-pkg', text: 'skillhost-probe-pkg' },
    ]
    const told: Parameters<typeof provisionBuildLine>[0][] = []
    const provision = {
      cacheDir: cache,
      index: { findLinks: wheels },
      onBuild: (e: Parameters<typeof provisionBuildLine>[0]) => void told.push(e),
    }
    const err = await provisionedInterpreter(PYTHON as string, requirements, provision).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(SkillHostError.is(err, 'E_SKILL_ENV_BUILD_FAILED')).toBe(true)
    const model = renderError(err)
    expect(model).toMatch(/^E_SKILL_ENV_BUILD_FAILED: /)
    for (const hidden of [ABSENT, cache, wheels, '.log']) expect(model).not.toContain(hidden)
    const failed = told.find((e) => e.phase === 'failed')
    expect(failed?.failure?.log).toMatch(new RegExp(`^${cache}/logs/[0-9a-f]{32}\\.log$`))
    expect(existsSync(failed?.failure?.log as string)).toBe(true)
    const line = provisionBuildLine(failed as Parameters<typeof provisionBuildLine>[0])
    expect(line).toContain(`failed to build in `)
    expect(line).toContain(`pip found no wheel of '${ABSENT}'`)
    expect(line).toContain(`pip's full log: ${failed?.failure?.log}`)
  }, 120_000)
})

describe('buildFailureCause reads pip in one line', () => {
  const where = 'the index https://pypi.example/simple'
  it('an unreachable index is said as such, not as twelve lines of retries', () => {
    const retry =
      "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError(...)': /simple/pkg/\n"
    const stderr = `${retry.repeat(5)}ERROR: Could not find a version that satisfies the requirement pkg==1 (from versions: none)\nERROR: No matching distribution found for pkg==1\n`
    expect(buildFailureCause({ cmd: 'pip install', code: 1, stderr }, where)).toBe(
      `pip could not reach ${where}, so it found no wheel of 'pkg'`,
    )
  })

  it("another failure is pip's last ERROR line, escaped; a killed build says so; no output says the step", () => {
    const stderr = 'ERROR: first\nERROR: Invalid requirement: "a\u001b[31m"\n'
    expect(buildFailureCause({ cmd: 'pip install', code: 1, stderr }, where)).toBe(
      'pip said: Invalid requirement: "a\\u001b[31m"',
    )
    expect(buildFailureCause({ cmd: 'pip install', killed: true, stderr: '' }, where)).toBe(
      'pip ran past the build deadline and was stopped',
    )
    expect(
      buildFailureCause({ cmd: '/usr/bin/python3 -I -m venv /x', code: 1, stderr: '' }, where),
    ).toBe('python -m venv failed (status 1)')
  })

  it('a name pip printed is cut to a plain package name, never more of the line', () => {
    const stderr = 'ERROR: No matching distribution found for evil\u001b]0;x\u0007==1; rm -rf /\n'
    expect(buildFailureCause({ cmd: 'pip', code: 1, stderr }, where)).toBe(
      `pip found no wheel of 'evil' that fits in ${where}`,
    )
  })
})
