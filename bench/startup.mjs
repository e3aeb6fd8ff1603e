// Start-up (issue 40.12): `skillhost --version` and `skillhost list` on a small
// root (examples/skills), wall and CPU (user + sys) of the built binary, the
// median of 9 interleaved rounds. The PATH's python is a venv made for the run
// (outside the system folders, as a pyenv or venv python is, so `list` must
// ask it where it lives), behind a wrapper that counts its starts: once with
// the probe remembered from an earlier run, once with an empty cache folder.
// Run after `npx tsc -p tsconfig.build.json`: node bench/startup.mjs
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { machine, writeSection } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'dist/cli/main.js')
const ROUNDS = 9
const base = mkdtempSync(join(tmpdir(), 'skillhost-bench-startup-'))
execFileSync('python3', ['-m', 'venv', join(base, 'venv')])
const wrapperDir = join(base, 'bin')
mkdirSync(wrapperDir)
const starts = join(base, 'starts')
writeFileSync(
  join(wrapperDir, 'python3'),
  `#!/bin/sh\necho >> ${starts}\nexec ${join(base, 'venv/bin/python3')} "$@"\n`,
)
chmodSync(join(wrapperDir, 'python3'), 0o755)
const env = { ...process.env, PATH: `${wrapperDir}:${process.env.PATH}` }
const warm = join(base, 'warm')

/** One run: wall ms, CPU ms (user + sys, from bash's `time`), python starts. */
function once(args, xdg) {
  const before = count()
  const started = performance.now()
  const r = spawnSync(
    'bash',
    [
      '-c',
      `TIMEFORMAT='%U %S'; time "$0" "$1" ${args} >/dev/null 2>/dev/null`,
      process.execPath,
      bin,
    ],
    { env: { ...env, XDG_CACHE_HOME: xdg }, encoding: 'utf8', cwd: root },
  )
  const wall = performance.now() - started
  const [user, sys] = r.stderr.trim().split(/\s+/).map(Number)
  return { wall, cpu: (user + sys) * 1000, pythons: count() - before }
}

function count() {
  try {
    return readFileSync(starts, 'utf8').split('\n').length - 1
  } catch {
    return 0
  }
}

const cases = {
  '`skillhost --version`': () => once('--version', warm),
  '`skillhost list examples/skills`, probe remembered': () => once('list examples/skills', warm),
  '`skillhost list examples/skills`, empty cache': () => {
    const cold = mkdtempSync(join(base, 'cold-'))
    return once('list examples/skills', cold)
  },
}
once('list examples/skills', warm)
const load = loadavg()[0]
const results = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
for (let i = 0; i < ROUNDS; i++)
  for (const [k, run] of Object.entries(cases)) results[k].push(run())
rmSync(base, { recursive: true, force: true })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const rows = Object.entries(results).map(
  ([k, runs]) =>
    `| ${k} | ${median(runs.map((r) => r.wall)).toFixed(0)} ms | ${median(runs.map((r) => r.cpu)).toFixed(0)} ms | ${median(runs.map((r) => r.pythons))} |`,
)
const body = `Machine: ${machine()} (shared; 1-min load average ${load.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end).
Command: \`npx tsc -p tsconfig.build.json && node bench/startup.mjs\`. The built binary, median of ${ROUNDS} interleaved rounds; CPU is user + sys of the whole process tree. The PATH's python is a fresh venv behind a wrapper that counts its starts.

| command | wall | CPU | python processes started |
|---|---:|---:|---:|
${rows.join('\n')}

The python probe (issue 40.12) is remembered in \`$XDG_CACHE_HOME/skillhost/python-probes\`, keyed by the interpreter's path and mtime: a second \`list\` starts no python. A venv's python starts in tens of milliseconds, so the gain here is small; behind a pyenv shim chain (247 \`execve\` per probe in the issue) it is the whole chain. \`--version\` loads no tier and asks no python.`
console.log(body)
writeSection('Start-up: --version and list (issue 40.12)', body)
