import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptInterpreters } from '../../src/tiers/scripts/index.js'
import { PROBE_SKILL, probeWheelFolder } from '../helpers/probe-wheel.js'
import { runCli } from '../helpers/run-cli.js'
import { onLinux } from '../helpers/sandbox.js'
import { cacheWithInstaller } from '../helpers/shared-installer.js'

// Issue 23: "a locked deployment rebuilds the same environment" —
// skillhost run --locked FILE, with real bubblewrap, real python and an
// offline wheel index (PyPI is not reachable here or in CI).

const PYTHON = scriptInterpreters().python3?.[0]

const cli = runCli

describe.skipIf(!onLinux || PYTHON === undefined)('skillhost run --locked FILE', () => {
  let dir: string
  let skills: string
  let skill: string
  let wheels: string
  let lockPath: string
  let bareLock: string
  const fresh = () => mkdtempSync(join(dir, 'cache-'))
  /** A fresh cache holding the run's pip installer, for a build whose subject is the set's. */
  const seeded = () => cacheWithInstaller(join(fresh(), 'cache'), PYTHON as string)
  const edit = (name: string, change: (entry: Record<string, unknown>) => void): string => {
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'))
    change(lock.skills.probe)
    const path = join(dir, name)
    writeFileSync(path, JSON.stringify(lock))
    return path
  }
  const locked = (lock: string, cache: string, ...extra: string[]) =>
    cli([
      'run',
      '--locked',
      lock,
      skill,
      'scripts/use.py',
      '--provision',
      '--find-links',
      wheels,
      '--env-cache',
      cache,
      ...extra,
    ])

  beforeAll(async () => {
    ;({ dir, wheels, skill } = probeWheelFolder(PYTHON as string, 'skillhost-run-locked-', {
      ...PROBE_SKILL,
      path: 'skills/probe',
    }))
    skills = join(dir, 'skills')
    writeFileSync(join(skill, 'scripts', 'hello.sh'), 'echo hello\n')
    lockPath = join(dir, 'skills.lock.json')
    expect((await cli(['lock', '--no-default-roots', '--out', lockPath, skills])).code).toBe(0)
    bareLock = join(dir, 'bare.lock.json')
    writeFileSync(bareLock, readFileSync(lockPath))
    const env = await cli([
      'env',
      skill,
      '--find-links',
      wheels,
      '--env-cache',
      await seeded(),
      '--lock',
      lockPath,
    ])
    // Only the build's progress lines, each in env's voice once.
    const lines = env.stderr.split('\n').filter(Boolean)
    expect(lines.every((l) => /^\[skillhost env: (building|built) /.test(l))).toBe(true)
    expect(env.code).toBe(0)
  }, 180_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('rebuilds the pinned environment in a cache holding no environment, exactly as pinned, and runs', async () => {
    const cache = await seeded()
    const r = await locked(lockPath, cache)
    // The one build is told on stderr, start and end; nothing else is said.
    const told = r.stderr.trimEnd().split('\n')
    expect(told).toHaveLength(2)
    expect(told[0]).toMatch(/^\[skillhost run: env: building a python environment for .+\]$/)
    expect(told[1]).toMatch(/^\[skillhost run: env: built the environment for .+ in \d+\.\d s\]$/)
    expect(r.stdout).toBe('from-the-wheel\n')
    expect(r.code).toBe(0)
    const pinned = JSON.parse(readFileSync(lockPath, 'utf8')).skills.probe.environments[0].packages
    const built = readdirSync(cache).filter((f) => /^[0-9a-f]{32}$/.test(f))
    expect(built).toHaveLength(1)
    const record = JSON.parse(readFileSync(join(cache, built[0] as string, 'env.json'), 'utf8'))
    expect(record.packages).toEqual(pinned)
  }, 120_000)

  it('runs an unchanged skill without provisioning too', async () => {
    const r = await cli(['run', skill, 'scripts/hello.sh', '--locked', lockPath])
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('hello\n')
    expect(r.code).toBe(0)
  }, 60_000)

  it('refuses a skill whose files drifted from the lock, naming them, and runs nothing', async () => {
    const notes = join(skill, 'notes.md')
    appendFileSync(join(skill, 'scripts', 'hello.sh'), 'echo changed\n')
    writeFileSync(notes, 'new\n')
    try {
      const r = await cli(['run', skill, 'scripts/hello.sh', '--locked', lockPath])
      expect(r.code).toBe(65)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(
        `skillhost run: E_SKILL_NOT_PINNED: skill 'probe' is not as ${lockPath} pins it (changed probe: +notes.md ~scripts/hello.sh); review the change, then pin it again with skillhost lock\n`,
      )
      const j = await cli(['run', skill, 'scripts/hello.sh', '--locked', lockPath, '--json'])
      expect(j.code).toBe(65)
      expect(JSON.parse(j.stdout).error.code).toBe('E_SKILL_NOT_PINNED')
    } finally {
      writeFileSync(join(skill, 'scripts', 'hello.sh'), 'echo hello\n')
      rmSync(notes)
    }
    // Put back as pinned, it runs again.
    expect((await cli(['run', skill, 'scripts/hello.sh', '--locked', lockPath])).code).toBe(0)
  }, 60_000)

  it('refuses a skill the lockfile does not hold, and a lockfile it cannot use', async () => {
    const other = join(dir, 'other', 'probe2')
    mkdirSync(other, { recursive: true })
    writeFileSync(join(other, 'SKILL.md'), '---\nname: probe2\ndescription: Not pinned.\n---\nx\n')
    writeFileSync(join(other, 'hi.sh'), 'echo hi\n')
    const r = await cli(['run', other, 'hi.sh', '--locked', lockPath])
    expect(r.code).toBe(65)
    expect(r.stderr).toBe(
      `skillhost run: E_SKILL_NOT_PINNED: skill 'probe2' is not pinned in ${lockPath}; pin it with skillhost lock\n`,
    )
    const missing = await cli([
      'run',
      skill,
      'scripts/hello.sh',
      '--locked',
      join(dir, 'nope.json'),
    ])
    expect(missing.code).toBe(65)
    expect(missing.stderr).toMatch(/^skillhost run: E_INVALID_SKILLS_CONFIG: --locked .*nope\.json/)
  }, 60_000)

  it('refuses a tampered pin: the wheel is not the one pinned (--require-hashes)', async () => {
    const tampered = edit('tampered.lock.json', (entry) => {
      const [env] = entry.environments as { packages: { sha256: string }[] }[]
      for (const p of env?.packages ?? []) p.sha256 = 'f'.repeat(64)
    })
    const cache = await seeded()
    const r = await locked(tampered, cache, '--json')
    expect(r.code).toBe(65)
    const { error } = JSON.parse(r.stdout)
    expect(error.code).toBe('E_SKILL_NOT_PINNED')
    expect(error.message).toContain('whose sha256 the package index does not serve')
    expect(readdirSync(cache).filter((f) => /^[0-9a-f]{32}$/.test(f))).toEqual([])
  }, 120_000)

  it('never resolves afresh: an environment not pinned, or pinned without hashes, is refused unbuilt', async () => {
    // The lockfile as skillhost lock wrote it, before env --lock pinned the environment.
    const cache = fresh()
    const bare = await locked(bareLock, cache)
    expect(bare.code).toBe(65)
    expect(bare.stdout).toBe('')
    expect(bare.stderr).toBe(
      'skillhost run: E_SKILL_NOT_PINNED: the environment for skillhost-probe-pkg is not pinned in the lockfile in force; pin it with skillhost env --lock\n',
    )
    const unhashed = edit('unhashed.lock.json', (entry) => {
      const [env] = entry.environments as { packages: { sha256?: string }[] }[]
      for (const p of env?.packages ?? []) delete p.sha256
    })
    const r = await locked(unhashed, cache)
    expect(r.code).toBe(65)
    expect(r.stderr).toContain('is pinned without the sha256 of every package')
    // Nothing was installed for either.
    expect(readdirSync(cache)).toEqual([])
  }, 60_000)
})
