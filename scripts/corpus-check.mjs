#!/usr/bin/env node
// Does a real skill's script behave the same through skillhost as run by hand?
//
//   node scripts/corpus-check.mjs <collections-folder> [--sample N] [--seed S] [--json]
//
// Finds skill folders (a SKILL.md) under the folder, takes the script files of
// each (scripts/ or the skill's top level: .py, .sh, .js, .mjs), draws a
// seeded sample of N skills (one script each, so one huge skill cannot fill
// the sample), and runs `<script> --help` twice: directly, with the
// interpreter the user's PATH gives (python3, bash, node) in an empty temp
// folder, and through `skillhost run <skill> <script> --json -- --help`
// (this checkout's dist/, so run `npm run build` first). It prints how many
// ended the same way (both exit 0, or both non-zero), how many failed only
// under skillhost (by reason, read from stderr), and how many only directly.
//
// Needs bubblewrap. Runs two at a time (the machines are 2-core); a few
// minutes for N=100. The figures go to bench/RESULTS.md ("Real scripts").
//
// Task mode, real work instead of --help (issue 37 item 9):
//
//   node scripts/corpus-check.mjs <collections-folder> --tasks scripts/corpus-tasks.json
//        [--python PATH] [--node PATH] [--only id,id] [--keep] [--json]
//
// Each task of the file names a skill folder (under the collections folder),
// one or more steps (a script of the skill and its arguments) and its inputs:
// literal text or JSON, a document scripts/corpus-inputs.py makes (a fillable
// PDF, a text PDF, a docx, an xlsx, a pptx) or a sample file of the skill
// itself. The inputs are made once and copied to two folders; the steps run
// in one directly (`<interpreter> <skill>/<script> args...`, working folder =
// that folder, environment PATH/HOME/LANG only) and in the other through
// `skillhost run <skill> <script> --json -- args...` (this checkout's dist/:
// `npx tsc -p tsconfig.build.json` first). The inside run needs:
//   --workspace <folder>       the second folder, so the files the script makes
//                              stay there to compare; skillhost refuses a
//                              root-owned workspace, so it is chowned to uid 1000
//   --interpreter python3=P    P = --python, else what the PATH's python3 says
//   --interpreter node=N       is its sys.executable (a venv's own python, so its
//                              packages come along); N likewise from node
//   --timeout 60               (the default 20 s is short for pack/validate)
// No --read-path: every input is in the workspace. Then it compares exit
// status, stdout and every file and folder left in each folder, byte for
// byte, after normalising only what must differ: the working folder (/work
// inside) and the skill folder (/skill inside) as whole paths in stdout and in
// text and zip members; ISO date-times within the task's own run (a writer's
// clock); zip member times and order (a packer's clock and the file system's
// listing order). --keep leaves each task's folders (seed/, outside/,
// inside/) for a look. Python packages: the skills need pypdf, pdfplumber,
// openpyxl, python-docx, defusedxml, lxml, reportlab and pyyaml; here a venv
// of the PATH's python with those wheels (pip install --no-index
// --find-links <wheels>), put first on PATH. The figures go to
// bench/RESULTS.md ("Real tasks").
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, extname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { exec, reason } from './corpus-exec.mjs'
import { runTaskMode } from './corpus-task-mode.mjs'

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/cli/main.js')
const EXTENSIONS = new Map([
  ['.py', 'python3'],
  ['.sh', 'bash'],
  ['.js', 'node'],
  ['.mjs', 'node'],
])
const SKIP = new Set(['.git', 'node_modules', '__pycache__', '.venv'])
const TIMEOUT_SECONDS = 20

function usage(message) {
  if (message) process.stderr.write(`corpus-check: ${message}\n`)
  process.stderr.write(
    'usage: node scripts/corpus-check.mjs <collections-folder> [--sample N] [--seed S] [--json]\n' +
      '       node scripts/corpus-check.mjs <collections-folder> --tasks FILE [--python PATH]\n' +
      '            [--node PATH] [--only id,id] [--keep] [--json]\n',
  )
  process.exit(2)
}

const VALUE_FLAGS = ['--tasks', '--python', '--node', '--only']

function parse(argv) {
  const opts = { root: undefined, sample: 100, seed: 1, json: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--json') opts.json = true
    else if (a === '--keep') opts.keep = true
    else if (a === '--sample' || a === '--seed') {
      const n = Number(argv[++i])
      if (!Number.isInteger(n) || n < 1) usage(`${a} needs a whole number >= 1`)
      opts[a.slice(2)] = n
    } else if (VALUE_FLAGS.includes(a)) {
      const v = argv[++i]
      if (v === undefined) usage(`${a} needs a value`)
      opts[a.slice(2)] = a === '--only' ? v.split(',') : v
    } else if (a.startsWith('-')) usage(`unknown option ${a}`)
    else if (opts.root === undefined) opts.root = a
    else usage('one collections folder only')
  }
  if (opts.root === undefined) usage('name a folder of fetched skill collections')
  return opts
}

/**
 * The executable the user's PATH gives for `name`, as that program reports
 * itself: a pyenv shim or a venv resolves to the python it runs (a venv's own
 * bin/python, so its packages come along), a version manager's node likewise.
 */
function executableOf(name, printSelf) {
  try {
    return execFileSync(name, [printSelf[0], printSelf[1]], { encoding: 'utf8' }).trim()
  } catch {
    usage(`${name} is not on PATH`)
  }
}

/** Skill folders under `root` (a folder holding SKILL.md), without following symlinks. */
function skillFolders(root) {
  const found = []
  const stack = [resolve(root)]
  while (stack.length > 0) {
    const dir = stack.pop()
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    if (entries.some((e) => e.isFile() && e.name === 'SKILL.md')) found.push(dir)
    for (const e of entries) if (e.isDirectory() && !SKIP.has(e.name)) stack.push(join(dir, e.name))
  }
  return found.sort()
}

/** The skill's script files this check runs: top level and scripts/, by extension. */
function scriptsOf(skill) {
  const out = []
  for (const sub of ['', 'scripts']) {
    let entries
    try {
      entries = readdirSync(join(skill, sub), { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of entries) {
      if (!e.isFile() || !EXTENSIONS.has(extname(e.name))) continue
      const rel = sub ? `${sub}/${e.name}` : e.name
      if (statSync(join(skill, rel)).size > 0) out.push(rel)
    }
  }
  return out.sort()
}

/** mulberry32: a small seeded generator, so a sample can be drawn again. */
function random(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function draw(items, n, seed) {
  const next = random(seed)
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j], copy[i]]
  }
  return copy.slice(0, n)
}

async function checkOne(skill, script) {
  const scratch = mkdtempSync(join(tmpdir(), 'skillhost-corpus-check-'))
  try {
    const interpreter = EXTENSIONS.get(extname(script))
    const direct = await exec([interpreter, join(skill, script), '--help'], scratch, {
      timeoutSeconds: TIMEOUT_SECONDS + 10,
    })
    const through = await exec(
      [
        process.execPath,
        CLI,
        'run',
        skill,
        script,
        '--json',
        '--timeout',
        String(TIMEOUT_SECONDS),
        '--',
        '--help',
      ],
      scratch,
      { timeoutSeconds: TIMEOUT_SECONDS + 10 },
    )
    let hosted
    try {
      const parsed = JSON.parse(through.stdout)
      hosted = parsed.error
        ? { status: through.status, stderr: `${parsed.error.code}` }
        : { status: parsed.timedOut ? 124 : (parsed.exitCode ?? 128), stderr: parsed.stderr ?? '' }
    } catch {
      hosted = { status: through.status, stderr: through.stderr || 'unparsable output' }
    }
    return { direct, hosted }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function main() {
  const opts = parse(process.argv.slice(2))
  const root = resolve(opts.root)
  if (opts.tasks) {
    const python = opts.python
      ? resolve(opts.python)
      : executableOf('python3', ['-c', 'import sys; print(sys.executable)'])
    const node = opts.node ? resolve(opts.node) : executableOf('node', ['-p', 'process.execPath'])
    await runTaskMode(root, { ...opts, python, node })
    return
  }
  const candidates = []
  for (const skill of skillFolders(root)) {
    const scripts = scriptsOf(skill)
    if (scripts.length > 0) candidates.push({ skill, scripts })
  }
  const next = random(opts.seed + 1)
  const sample = draw(candidates, opts.sample, opts.seed).map((c) => ({
    skill: c.skill,
    script: c.scripts[Math.floor(next() * c.scripts.length)],
  }))
  const rows = []
  let index = 0
  const worker = async () => {
    while (index < sample.length) {
      const item = sample[index++]
      const { direct, hosted } = await checkOne(item.skill, item.script)
      const okDirect = direct.status === 0
      const okHosted = hosted.status === 0
      rows.push({
        skill: relative(root, item.skill),
        script: item.script,
        direct: direct.status,
        hosted: hosted.status,
        outcome:
          okDirect === okHosted
            ? 'same'
            : okDirect
              ? 'fails only under skillhost'
              : 'fails only directly',
        reason: okDirect === okHosted ? undefined : reason(okDirect ? hosted : direct),
      })
      if (!opts.json) process.stderr.write(`\r${rows.length}/${sample.length}`)
    }
  }
  await Promise.all([worker(), worker()])
  rows.sort((a, b) => a.skill.localeCompare(b.skill))
  const count = (pred) => rows.filter(pred).length
  const byReason = {}
  for (const r of rows.filter((x) => x.outcome === 'fails only under skillhost'))
    byReason[r.reason] = (byReason[r.reason] ?? 0) + 1
  const summary = {
    root,
    skillsWithScripts: candidates.length,
    sampled: rows.length,
    seed: opts.seed,
    same: count((r) => r.outcome === 'same'),
    sameExitStatus: count((r) => r.direct === r.hosted),
    failsOnlyUnderSkillhost: count((r) => r.outcome === 'fails only under skillhost'),
    failsOnlyDirectly: count((r) => r.outcome === 'fails only directly'),
    byReason,
  }
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ summary, rows }, null, 2)}\n`)
    return
  }
  process.stderr.write('\n')
  const out = (s = '') => process.stdout.write(`${s}\n`)
  out(`${summary.sampled} of ${summary.skillsWithScripts} skills with scripts (seed ${opts.seed})`)
  out(
    `  same outcome:                ${summary.same} (same exit status: ${summary.sameExitStatus})`,
  )
  out(`  fails only under skillhost:  ${summary.failsOnlyUnderSkillhost}`)
  for (const [why, n] of Object.entries(byReason).sort((a, b) => b[1] - a[1]))
    out(`    ${String(n).padStart(3)}  ${why}`)
  out(`  fails only directly:         ${summary.failsOnlyDirectly}`)
  for (const r of rows.filter((x) => x.outcome !== 'same'))
    out(`  - ${r.outcome}: ${r.skill} ${r.script} (${r.reason}; ${r.direct} vs ${r.hosted})`)
}

await main()
