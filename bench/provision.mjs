// Script environments (issue 39 item 2): a requirement set builds once per
// machine and is reused by every skill, session and process that needs it.
// Measures, over one wheel folder (no network): a cold first set (the cache's
// installer built with it), a cold second set (installer reused), a warm reuse
// in the same process, a reuse from a second process, and two processes whose
// first calls for a fresh set race (how many builds ran, counted by each
// process's onBuild events). Then the build itself, interleaved on the same
// set: the oldest build (`python -m venv`, which runs ensurepip, then the
// venv's pip), the previous one (`venv --without-pip`, the seeds and the set
// installed by the installer's pip, the seeds byte-compiled) and today's
// (`venv --without-pip`, the installer's seed template copied, the set
// installed by the installer's pip).
// Run after `npx tsc -p tsconfig.build.json`:
//   SKILLHOST_WHEELS=/opt/pypi/files node bench/provision.mjs
// Without a wheel folder holding pypdf the benchmark says so and exits 0.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { machine, writeSection } from './lib.mjs'

const wheels = process.env.SKILLHOST_WHEELS ?? '/opt/pypi/files'
if (!existsSync(wheels) || !readdirSync(wheels).some((f) => /^pypdf-.*\.whl$/.test(f))) {
  console.log(`provision: no pypdf wheel in ${wheels} (set SKILLHOST_WHEELS); skipped`)
  process.exit(0)
}
const REQUIREMENT = 'pypdf'
/** A second set (another key, the same wheel): a cold build with the installer already there. */
const SECOND = 'pypdf>=3'
const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).trim()
const self = fileURLToPath(import.meta.url)

// A child mode: one process's provisioning of the set in `cacheDir`, reporting
// its time and how many builds it started, as one JSON line.
if (process.argv[2] === '--child') {
  const [cacheDir] = process.argv.slice(3)
  const { provisionedInterpreter } = await import('../dist/tiers/scripts/deps/script-env.js')
  const { parseRequirement } = await import('../dist/tiers/scripts/deps/requirement.js')
  let builds = 0
  const options = {
    cacheDir,
    index: { findLinks: wheels },
    onBuild: (e) => {
      if (e.phase === 'started') builds += 1
    },
  }
  const started = performance.now()
  const got = await provisionedInterpreter(
    python,
    [parseRequirement(REQUIREMENT, 'bench')],
    options,
  )
  const ms = performance.now() - started
  const again = performance.now()
  await provisionedInterpreter(python, [parseRequirement(REQUIREMENT, 'bench')], options)
  const warmMs = performance.now() - again
  let secondMs
  if (process.argv[4] === '--second') {
    const t = performance.now()
    await provisionedInterpreter(python, [parseRequirement(SECOND, 'bench')], options)
    secondMs = performance.now() - t
  }
  console.log(JSON.stringify({ ms, warmMs, secondMs, builds, key: got?.env.key }))
  process.exit(0)
}

function child(cacheDir, ...more) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [self, '--child', cacheDir, ...more], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    p.stdout.on('data', (d) => {
      out += d
    })
    p.on('error', reject)
    p.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)))
        : reject(new Error(`child ${code}`)),
    )
  })
}

const loadAtStart = loadavg()[0]
const fresh = () => mkdtempSync(join(tmpdir(), 'skillhost-bench-env-'))
const ROUNDS = Number(process.env.ROUNDS ?? 2)
const rows = []
for (let round = 0; round < ROUNDS; round++) {
  const cache = fresh()
  const load = loadavg()[0]
  const first = await child(cache, '--second') // cold, warm, then a second set, in one process
  const second = await child(cache) // another process: reused
  const race = fresh()
  const [a, b] = await Promise.all([child(race), child(race)])
  rows.push({ first, second, race: [a, b], load })
  rmSync(cache, { recursive: true, force: true })
  rmSync(race, { recursive: true, force: true })
}

// The build, interleaved: the old steps against the new ones (the installer built once, timed apart).
const { pipInstaller } = await import('../dist/tiers/scripts/deps/pip-installer.js')
const { COPY_TEMPLATE } = await import('../dist/tiers/scripts/deps/seed-template.js')
const { describePython } = await import('../dist/tiers/scripts/policy/user-python.js')
const installerCache = fresh()
const installerStarted = performance.now()
const installer = await pipInstaller(
  describePython(python),
  installerCache,
  { timeout: 600_000, env: { LANG: 'C.UTF-8' } },
  undefined,
)
const installerMs = performance.now() - installerStarted
if (installer === undefined) throw new Error(`${python} has no usable bundled pip`)
const setArgs = [
  ...['install', '--no-input', '--disable-pip-version-check', '--no-cache-dir', '-q'],
  ...['--no-index', '--find-links', wheels, '--only-binary', ':all:', REQUIREMENT],
]
const seedArgs = [
  ...['install', '--no-input', '--disable-pip-version-check', '--no-cache-dir', '-q'],
  ...['--no-index', '--find-links', installer.wheels, '--no-deps', ...installer.seeds],
]
const timed = (steps) => {
  const started = performance.now()
  const load = loadavg()[0]
  const split = []
  for (const [cmd, args, env = {}] of steps) {
    const t = performance.now()
    execFileSync(cmd, args, { stdio: 'ignore', env: { LANG: 'C.UTF-8', ...env } })
    split.push(performance.now() - t)
  }
  return { ms: performance.now() - started, split, load }
}
const noConfig = { PIP_CONFIG_FILE: '/dev/null' }
// The previous build: the seeds installed by pip for every set.
const pipSeeded = (venv) => [
  [python, ['-I', '-m', 'venv', '--without-pip', venv]],
  [join(venv, 'bin', 'python'), ['-I', installer.pip, ...seedArgs], noConfig],
  [join(venv, 'bin', 'python'), ['-I', installer.pip, ...setArgs]],
]
// Today's, as seededVenv runs it: the installer's seed template copied.
const templateSeeded = (venv) => [
  [python, ['-I', '-m', 'venv', '--without-pip', venv]],
  [python, ['-I', '-c', COPY_TEMPLATE, installer.seeded, venv]],
  [join(venv, 'bin', 'python'), ['-I', installer.pip, ...setArgs]],
]
const installers = { old: [], pip: [], template: [] }
for (let round = 0; round < ROUNDS; round++) {
  const dir = fresh()
  installers.old.push(
    timed([
      [python, ['-I', '-m', 'venv', join(dir, 'a')]],
      [join(dir, 'a', 'bin', 'python'), ['-I', '-m', 'pip', ...setArgs]],
    ]),
  )
  installers.pip.push(timed(pipSeeded(join(dir, 'b'))))
  installers.template.push(timed(templateSeeded(join(dir, 'c'))))
  rmSync(dir, { recursive: true, force: true })
}
rmSync(installerCache, { recursive: true, force: true })
const loadAtEnd = loadavg()[0]

const s = (ms) => (ms / 1000).toFixed(2)
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const buildsInRace = rows.map((r) => r.race[0].builds + r.race[1].builds)
const cell = (r) => `${s(r.ms)} (${r.split.map(s).join(' + ')}; load ${r.load.toFixed(1)})`
const ratio = (i, of) => (installers.template[i].ms / installers[of][i].ms).toFixed(2)
const table = `| measure | ${rows.map((_, i) => `round ${i + 1}`).join(' | ')} |
|---|${rows.map(() => '---:').join('|')}|
| 1-min load at the round's start | ${rows.map((r) => r.load.toFixed(1)).join(' | ')} |
| cold first set: fresh cache, the installer built with it | ${rows.map((r) => `${s(r.first.ms)} s`).join(' | ')} |
| cold second set: same cache and process, installer reused | ${rows.map((r) => `${s(r.first.secondMs)} s`).join(' | ')} |
| warm: the first set again, same process | ${rows.map((r) => `${r.first.warmMs.toFixed(1)} ms`).join(' | ')} |
| reused: a second process's first call | ${rows.map((r) => `${r.second.ms.toFixed(1)} ms (builds: ${r.second.builds})`).join(' | ')} |
| race: two processes' first calls at once, fresh cache | ${rows.map((r) => `${s(Math.max(r.race[0].ms, r.race[1].ms))} s, builds: ${r.race[0].builds + r.race[1].builds}`).join(' | ')} |

The build, interleaved rounds on the same set (seconds: steps; 1-min load at the build's start). Installer built
once beforehand in ${s(installerMs)} s (unpack and byte-compile the bundled pip, make its seed template).

| build | ${installers.old.map((_, i) => `round ${i + 1}`).join(' | ')} | median |
|---|${installers.old.map(() => '---:').join('|')}|---:|
| old: \`python -m venv\` (ensurepip) + the venv's pip installs the set | ${installers.old.map(cell).join(' | ')} | ${s(med(installers.old.map((r) => r.ms)))} |
| previous: \`venv --without-pip\` + seeds by pip (byte-compiled) + the set, by the installer's pip | ${installers.pip.map(cell).join(' | ')} | ${s(med(installers.pip.map((r) => r.ms)))} |
| today: \`venv --without-pip\` + the seed template copied + the set, by the installer's pip | ${installers.template.map(cell).join(' | ')} | ${s(med(installers.template.map((r) => r.ms)))} |
| today / previous, same round | ${installers.old.map((_, i) => ratio(i, 'pip')).join(' | ')} | |
| today / old, same round | ${installers.old.map((_, i) => ratio(i, 'old')).join(' | ')} | |

1-min load average ${loadAtStart.toFixed(1)} at start, ${loadAtEnd.toFixed(1)} at end.`
console.log(table)
if (buildsInRace.some((n) => n !== 1))
  console.log(`race: builds per round ${buildsInRace.join(', ')} (expected 1)`)
writeSection(
  'Script environments (provisioning)',
  `Machine: ${machine()}; python ${python}.
Command: \`npx tsc -p tsconfig.build.json && SKILLHOST_WHEELS=${wheels} node bench/provision.mjs\`. Requirement set: \`${REQUIREMENT}\`,
from the wheel folder (\`--no-index --find-links\`, wheels only); each process calls \`provisionedInterpreter\` (what \`run --provision\`,
\`serve --provision\` and \`skillhost env\` call) twice; "builds" counts \`onBuild\` "started" events in that process.

${table}

What this shows: a set builds once per machine and cache folder. The cache entry is keyed by the interpreter and the
requirement set (\`envKey\`), built in a temporary folder and renamed into place whole, under a lock folder that a
second builder (another session in the same process, or another process) waits on: in the race two processes'
first calls started one build between them, and \`test/tiers/scripts/provision.test.ts\` ("sessions whose first calls
for a fresh set race build it once") races four sessions' first calls in one process and counts the builds their
listeners hear (1), then calls again in each (still 1). A warm call costs a read of the entry's \`env.json\` (about a
millisecond); a second process's first call a few hundred ms at this load, most of it asking the python where it lives.

The build (issue 39 item 2): a venv is made \`--without-pip\` and seeded with what \`python -m venv\` would have put in
it (pip, and setuptools where the interpreter bundles it: ensurepip's own wheels, \`--no-index --no-deps\`, in a run
of its own without \`--report\`, so \`packages\`, \`env --lock\` and \`--require-hashes\` see only the set, as before), by
the cache's installer: the bundled pip unpacked and byte-compiled once per cache folder and interpreter
(\`installer/<key>/\`, same lock discipline as sets; \`test/tiers/scripts/provision-installer.test.ts\` counts its
builds through its span, compares the venv's \`pip freeze --all\`, \`bin/\` and \`site-packages\` with a \`python -m venv\`
one, races two first builds, aborts and kills the unpack). What it saves is ensurepip running pip out of its wheel,
a zip with no cached \`.pyc\`. The seeds are byte-compiled as ensurepip compiles them (same contents: a venv bound
read-only into the sandbox imports \`pkg_resources\`, pip or \`_distutils_hack\` without compiling them on every call).
That install and compile was most of a build, so it is now done once per installer: the seed template
(\`seed-template.ts\`) is what it added to a \`--without-pip\` venv, kept at the same paths with their times, and each
set's venv copies it (row "today"; the installer test compares every \`site-packages\` file with ensurepip's venv and
checks each \`.pyc\` against its source). An interpreter that bundles no pip 22.3 or later builds with
\`python -m venv\` as before (tested with a real python 3.7, whose pip 22.0.4 still fails, as before, at the set's \`--report\`).

No alternative installer is reachable from the registries the project uses: \`uv\` is not on the local index, the npm
package named \`uv\` is an unrelated UTF-8 validator and Astral publishes no uv on npm, and Debian's \`python3-*\`
packages install into the system python, not into a per-set environment. Builds stay pip, wheels only
(\`--only-binary :all:\`).`,
)
