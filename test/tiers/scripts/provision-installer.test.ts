import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { personText, SkillHostError } from '../../../src/common/errors.js'
import { INSTALLER_STEP } from '../../../src/tiers/scripts/deps/pip-installer.js'
import {
  type ProvisionBuild,
  type ProvisionOptions,
  provisionEnv,
} from '../../../src/tiers/scripts/deps/provision-env.js'
import { parseRequirement } from '../../../src/tiers/scripts/deps/requirement.js'
import { scriptInterpreters } from '../../../src/tiers/scripts/index.js'
import { describePython, type PythonLayout } from '../../../src/tiers/scripts/policy/user-python.js'
import { buildProbeWheel } from '../../helpers/probe-wheel.js'
import { processesWithMarker } from '../../helpers/proc-scan.js'
import { onLinux } from '../../helpers/sandbox.js'

// Issue 39 item 2: a set's venv is made `--without-pip` and seeded by an
// installer built once per cache and interpreter (the bundled pip, unpacked
// and byte-compiled), with the same contents `python -m venv` gave.
const PYTHON = scriptInterpreters().python3?.[0]
/** A real interpreter whose bundled pip (22.0.4) is older than 22.3: it builds as before. */
const OLD_PIP_PYTHON = '/root/.pyenv/versions/3.7.16/bin/python3.7'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const installerBuilds = () =>
  exporter.getFinishedSpans().filter((s) => s.name === 'skillhost.provision_installer').length

/** Prints each `.pyc` under argv[1] whose header does not match its source's mtime and size, then `checked`. */
const STALE_PYCS = [
  'import os, sys, importlib.util as u',
  'for d, _, fs in os.walk(sys.argv[1]):',
  '  for f in fs:',
  '    if not f.endswith(".pyc"): continue',
  '    src = u.source_from_cache(os.path.join(d, f))',
  '    if not os.path.exists(src): continue',
  '    h = open(os.path.join(d, f), "rb").read(16); st = os.stat(src)',
  '    if int.from_bytes(h[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF or int.from_bytes(h[12:16], "little") != st.st_size & 0xFFFFFFFF: print(src)',
  'print("checked")',
].join('\n')

const noShim = async (dir: string) => {
  mkdirSync(dir)
}

describe.skipIf(!onLinux || PYTHON === undefined)('the pip installer of an env cache', () => {
  let dir: string
  let wheels: string
  let layout: PythonLayout
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider)
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    dir = mkdtempSync(join(tmpdir(), 'skillhost-installer-'))
    wheels = join(dir, 'wheels')
    mkdirSync(wheels)
    buildProbeWheel(PYTHON as string, wheels)
    layout = describePython(PYTHON as string) as PythonLayout
  }, 60_000)
  afterAll(async () => {
    await provider.shutdown()
    trace.disable()
    context.disable()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  const options = (cacheDir: string, heard: ProvisionBuild[] = []): ProvisionOptions => ({
    cacheDir,
    index: { findLinks: wheels },
    onBuild: (e) => heard.push(e),
  })
  const set = (text: string) => [parseRequirement(text, 'test')]
  /** `pip <args>` in a venv, run by the venv's own python. */
  const venvPip = (venv: string, ...args: string[]) =>
    execFileSync(join(venv, 'bin', 'python'), ['-I', '-m', 'pip', ...args], {
      encoding: 'utf8',
      env: { LANG: 'C.UTF-8', PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    })

  it('two sets in one cache build the installer once; each venv is what python -m venv gave, plus the set', async () => {
    exporter.reset()
    const cacheDir = join(dir, 'two-sets')
    const heard: ProvisionBuild[] = []
    const a = await provisionEnv(
      layout,
      set('skillhost-probe-pkg'),
      options(cacheDir, heard),
      noShim,
    )
    const b = await provisionEnv(
      layout,
      set('skillhost-probe-pkg>=1'),
      options(cacheDir, heard),
      noShim,
    )
    expect(a.key).not.toBe(b.key)
    // Two set builds heard, one installer built.
    expect(heard.filter((e) => e.phase === 'started')).toHaveLength(2)
    expect(installerBuilds()).toBe(1)
    expect(readdirSync(join(cacheDir, 'installer'))).toHaveLength(1)
    // The set's packages, as pip's report of the set's own run says: the seeds are not in it.
    const sha256 = createHash('sha256')
      .update(readFileSync(join(wheels, 'skillhost_probe_pkg-1.0.0-py3-none-any.whl')))
      .digest('hex')
    expect(a.packages).toEqual([{ name: 'skillhost-probe-pkg', version: '1.0.0', sha256 }])
    expect(b.packages).toEqual(a.packages)
    // pip runs in the venv, and the venv holds exactly what ensurepip's venv holds, plus the set.
    const bundledPip = venvPip(a.venv, '--version').split(' ')[1]
    const reference = join(dir, 'reference-venv')
    execFileSync(PYTHON as string, ['-I', '-m', 'venv', reference], { env: { LANG: 'C.UTF-8' } })
    expect(venvPip(reference, '--version').split(' ')[1]).toBe(bundledPip)
    const freeze = venvPip(a.venv, 'freeze', '--all').split('\n').filter(Boolean)
    expect(freeze).toEqual(
      [
        ...venvPip(reference, 'freeze', '--all').split('\n').filter(Boolean),
        'skillhost-probe-pkg==1.0.0',
      ].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())),
    )
    const scripts = (venv: string) => readdirSync(join(venv, 'bin')).sort()
    expect(scripts(a.venv)).toEqual(scripts(reference))
    // Byte-compiled as ensurepip leaves it: a read-only venv imports pip without compiling it.
    const site = (venv: string) => {
      const lib = join(venv, 'lib')
      return join(lib, readdirSync(lib)[0] as string, 'site-packages')
    }
    expect(existsSync(join(site(a.venv), 'pip', '__pycache__'))).toBe(true)
    // Seeded from the installer's template (a copy, not pip again): every file ensurepip's venv
    // holds, at the same path, and each .pyc still matches its source (timestamps kept).
    const files = (root: string) =>
      readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => !e.isDirectory())
        .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
        .sort()
    expect(files(site(a.venv)).filter((f) => !f.startsWith('skillhost_probe_pkg'))).toEqual(
      files(site(reference)),
    )
    const stale = execFileSync(
      join(a.venv, 'bin', 'python'),
      ['-I', '-c', STALE_PYCS, site(a.venv)],
      { encoding: 'utf8' },
    )
    expect(stale).toBe('checked\n')
    expect(readdirSync(site(a.venv)).sort()).toEqual(
      [
        ...readdirSync(site(reference)),
        'skillhost_probe_pkg',
        'skillhost_probe_pkg-1.0.0.dist-info',
      ].sort(),
    )
  }, 180_000)

  it('a racing pair of first builds for a fresh cache builds the installer once', async () => {
    exporter.reset()
    const cacheDir = join(dir, 'race')
    const heard: ProvisionBuild[] = []
    // Two different sets, so neither waits on the other's set lock: both need the installer at once.
    const built = await Promise.all([
      provisionEnv(layout, set('skillhost-probe-pkg'), options(cacheDir, heard), noShim),
      provisionEnv(layout, set('skillhost-probe-pkg>=1'), options(cacheDir, heard), noShim),
    ])
    expect(new Set(built.map((e) => e.key)).size).toBe(2)
    expect(heard.filter((e) => e.phase === 'started')).toHaveLength(2)
    expect(installerBuilds()).toBe(1)
    // Nothing half-built, no lock: the two environments, the installer.
    expect(readdirSync(cacheDir).sort()).toEqual([...built.map((e) => e.key), 'installer'].sort())
    for (const env of built) expect(venvPip(env.venv, '--version')).toMatch(/^pip /)
  }, 180_000)

  /** Starts a build of a fresh cache; resolves once its unpack step is running, with its pids. */
  async function midUnpack(cacheDir: string, signal?: AbortSignal) {
    const heard: ProvisionBuild[] = []
    const build = provisionEnv(
      layout,
      set('skillhost-probe-pkg'),
      options(cacheDir, heard),
      noShim,
      signal,
    )
    build.catch(() => undefined)
    const marker = INSTALLER_STEP
    let polls = 0
    for (;;) {
      polls++
      const pids = processesWithMarker(marker).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(cacheDir),
      )
      if (pids.length > 0) return { build, pids, heard, polls }
      if (polls > 100_000) throw new Error('the unpack step never ran')
      await new Promise((r) => setTimeout(r, 2))
    }
  }

  it('an abort mid-installer-build kills the unpack and leaves nothing in the cache', async () => {
    const cacheDir = join(dir, 'abort')
    const owner = new AbortController()
    const { build, heard } = await midUnpack(cacheDir, owner.signal)
    owner.abort(new Error('owner gone'))
    await expect(build).rejects.toThrow('owner gone')
    expect(processesWithMarker(cacheDir)).toEqual([])
    expect(readdirSync(cacheDir)).toEqual([])
    expect(heard.map((e) => e.phase)).toEqual(['started', 'failed'])
    // The lock went with it: the next build builds the installer and the set.
    exporter.reset()
    const env = await provisionEnv(layout, set('skillhost-probe-pkg'), options(cacheDir), noShim)
    expect(installerBuilds()).toBe(1)
    expect(venvPip(env.venv, '--version')).toMatch(/^pip /)
  }, 180_000)

  it('an unpack that fails is E_SKILL_ENV_BUILD_FAILED with its one-line cause and log, and nothing half-built', async () => {
    const cacheDir = join(dir, 'killed')
    const { build, pids } = await midUnpack(cacheDir)
    for (const pid of pids) process.kill(pid, 'SIGKILL')
    const err = await build.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(SkillHostError.is(err, 'E_SKILL_ENV_BUILD_FAILED')).toBe(true)
    const person = personText(err as SkillHostError)
    expect(person).toMatch(/unpacking the interpreter's bundled pip failed/)
    // The model's words name no path, no package, no step.
    expect((err as SkillHostError).message).not.toMatch(/pip'|installer|\//)
    const log = /pip's full log: (\S+)$/.exec(person)?.[1]
    expect(log && readFileSync(log, 'utf8')).toContain(INSTALLER_STEP)
    expect(readdirSync(cacheDir)).toEqual(['logs'])
    expect(processesWithMarker(cacheDir)).toEqual([])
    exporter.reset()
    await provisionEnv(layout, set('skillhost-probe-pkg'), options(cacheDir), noShim)
    expect(installerBuilds()).toBe(1)
  }, 180_000)

  it.skipIf(!existsSync(OLD_PIP_PYTHON))(
    'an interpreter whose bundled pip is older than 22.3 builds as before (python -m venv, its own pip)',
    async () => {
      const old = describePython(OLD_PIP_PYTHON) as PythonLayout
      expect(old).toBeDefined()
      const cacheDir = join(dir, 'old-pip')
      exporter.reset()
      // As before this change: ensurepip's pip 22.0.4 runs the set's install, and has no --report
      // (pip 22.2), so such an interpreter could never build a set; it fails as it always did.
      const err = await provisionEnv(
        old,
        set('skillhost-probe-pkg'),
        options(cacheDir),
        noShim,
      ).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(SkillHostError.is(err, 'E_SKILL_ENV_BUILD_FAILED')).toBe(true)
      const log = /pip's full log: (\S+)$/.exec(personText(err as SkillHostError))?.[1]
      const text = readFileSync(log as string, 'utf8')
      expect(text.split('\n')[0]).toMatch(/\/venv\/bin\/python -I -m pip install /)
      expect(text).toContain('no such option: --report')
      // The verdict is kept (one unpack attempt), and no pip was unpacked for it.
      const [key] = readdirSync(join(cacheDir, 'installer'))
      const record = JSON.parse(
        readFileSync(join(cacheDir, 'installer', key as string, 'installer.json'), 'utf8'),
      )
      expect(record.fallback).toBe('bundled pip-22.0.4-py3-none-any.whl is older than 22.3')
      expect(readdirSync(join(cacheDir, 'installer', key as string)).sort()).toEqual([
        'installer.json',
        'wheels',
      ])
      await provisionEnv(old, set('skillhost-probe-pkg>=1'), options(cacheDir), noShim).catch(
        () => undefined,
      )
      expect(installerBuilds()).toBe(1)
    },
    180_000,
  )
})
