// Session-workspace benchmark (issue 11): the overhead of an undeclared-script
// call against a declared one, and the per-call cost of listing and spooling
// workspace files for 1, 100 and 1,000 files. Everything goes through real
// managers, real bubblewrap and the forged tools; rounds are interleaved so
// machine noise hits every column alike.
// Run after `npx tsc -p tsconfig.build.json`: node bench/workspace.mjs
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSkillManager, FileSystemSkillSource, forgeSkillTools } from '../dist/index.js'
import { createScriptSandbox } from '../dist/tiers/scripts/index.js'
import { runSkillScript, WORKSPACE_SPOOL_LIMITS } from '../dist/tiers/scripts/internal.js'
import { percentile, writeSection } from './lib.mjs'

const ROUNDS_A = 150
const ROUNDS_B = 25
const SIZES = [1, 100, 1000]
const loadStart = loadavg()[0]

// One skill: a declared noop (sidecar) and, undeclared, the same noop and a
// script that creates $1 small files under out/.
const base = mkdtempSync(join(tmpdir(), 'skillhost-bench-ws-'))
const dir = join(base, 'skills', 'bench-ws')
mkdirSync(dir, { recursive: true })
writeFileSync(
  join(dir, 'SKILL.md'),
  '---\nname: bench-ws\ndescription: Benchmark skill.\n---\nbody\n',
)
writeFileSync(join(dir, 'noop.sh'), ':\n')
writeFileSync(
  join(dir, 'mk.sh'),
  '#!/bin/sh\nmkdir -p out\ni=0\nwhile [ "$i" -lt "$1" ]; do echo "$i" > "out/f$i.txt"; i=$((i+1)); done\n',
)
writeFileSync(
  join(dir, 'skillhost.yaml'),
  'scripts:\n  - name: noop\n    path: noop.sh\n    description: Does nothing.\n    interpreter: sh\n',
)

const sandbox = await createScriptSandbox({ maxTimeoutSeconds: 60, defaultTimeoutSeconds: 60 })
const source = new FileSystemSkillSource({ roots: [join(base, 'skills')] })

async function openManager() {
  const m = await createSkillManager({
    sources: [source],
    gate: async () => undefined,
    scripts: { ...sandbox.config, undeclared: 'allow' },
  })
  const ctx = m.createTurnContext()
  for (const t of forgeSkillTools(m)) ctx.tools.register(t)
  await m.load('bench-ws', ctx)
  const ws = await m.workspace.open()
  const call = async (name, args) => String(await ctx.tools.get(name).execute(args, ctx))
  return { m, ctx, ws, call }
}

const timed = async (samples, work) => {
  const t = performance.now()
  const out = await work()
  samples.push(performance.now() - t)
  return out
}
const stats = (s) => ({ p50: percentile(s, 50), p95: percentile(s, 95) })
const f = (n) => n.toFixed(1)

// Plain runSkillScript needs its own materialized root (the manager's is private).
const root = await sandbox.config.workspace.materialize({ id: 'bench-ws', version: '1' }, [
  { path: 'noop.sh', read: async () => new TextEncoder().encode(':\n') },
  {
    path: 'mk.sh',
    read: async () =>
      new TextEncoder().encode(
        'mkdir -p out\ni=0\nwhile [ "$i" -lt "$1" ]; do echo "$i" > "out/f$i.txt"; i=$((i+1)); done\n',
      ),
  },
])
const noopDecl = { name: 'noop', path: 'noop.sh', description: 'noop', interpreter: 'sh' }
const mkDecl = { name: 'mk', path: 'mk.sh', description: 'mk', interpreter: 'sh' }

// --- a. declared vs undeclared, and the workspace's own cost -----------------
const a = await openManager()
const declaredName = 'run_bench_ws_noop'
const undeclaredName = 'run_bench_ws_script'
const colsA = { plain: [], plainWs: [], declared: [], undeclared: [] }
const plainRun = (workspace) =>
  runSkillScript(sandbox.config, {
    skill: 'bench-ws',
    root,
    script: noopDecl,
    args: {},
    ...(workspace ? { workspace } : {}),
  })
for (let i = 0; i < 10; i++) {
  await plainRun()
  await plainRun(a.ws)
  await a.call(declaredName, {})
  await a.call(undeclaredName, { script: 'noop.sh' })
}
for (let i = 0; i < ROUNDS_A; i++) {
  // Rotate the order too, so no column always runs right after another.
  const steps = [
    () => timed(colsA.plain, () => plainRun()),
    () => timed(colsA.plainWs, () => plainRun(a.ws)),
    () => timed(colsA.declared, () => a.call(declaredName, {})),
    () => timed(colsA.undeclared, () => a.call(undeclaredName, { script: 'noop.sh' })),
  ]
  for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]()
}
const sa = Object.fromEntries(Object.entries(colsA).map(([k, v]) => [k, stats(v)]))
// Per-round ratio, so a slow stretch of the machine does not skew it.
const ratios = colsA.undeclared.map((u, i) => u / colsA.declared[i])
const ratio50 = sa.undeclared.p50 / sa.declared.p50
const ratioMedian = percentile(ratios, 50)
await a.m.dispose()

// --- b. 1, 100, 1,000 files ---------------------------------------------------
// One manager per size, each workspace holding N files under data/ (written
// through manager.workspace.put, as a host would); the put times are kept.
const managers = []
const putMs = {}
for (const n of SIZES) {
  const mgr = await openManager()
  const puts = []
  for (let i = 0; i < n; i++)
    await timed(puts, () => mgr.m.workspace.put(`data/f${i}.txt`, `${i}\n`))
  putMs[n] = { total: puts.reduce((x, y) => x + y, 0), last: stats(puts.slice(-Math.min(100, n))) }
  managers.push({ n, ...mgr })
}
const empty = await openManager() // (ii) creates its files in an otherwise empty workspace
const cols = Object.fromEntries(
  SIZES.map((n) => [
    n,
    { walk: [], noop: [], create: [], createScratch: [], createWsPlain: [], hostSh: [], list: [] },
  ]),
)
const spooled = {}
const mkPlain = (n, workspace) =>
  runSkillScript(sandbox.config, {
    skill: 'bench-ws',
    root,
    script: mkDecl,
    args: {},
    argv: [String(n)],
    ...(workspace ? { workspace } : {}),
  })
for (const { call } of managers) {
  await call(declaredName, {})
  await call('workspace_list', {})
}
for (let r = 0; r < ROUNDS_B; r++) {
  for (const { n, ws, call } of managers) {
    const c = cols[n]
    await timed(c.walk, () => ws.snapshot())
    await timed(c.noop, () => call(declaredName, {}))
    await timed(c.list, () => call('workspace_list', {}))
    // (ii): the tool call (walks + spooling), then the same script without
    // spooling (walks only) and without a workspace (scratch tmpfs, no walks).
    // All three in the otherwise empty workspace, emptied again after each.
    const out = await timed(c.create, () =>
      empty.call(undeclaredName, { script: 'mk.sh', args: [String(n)] }),
    )
    spooled[n] = (out.match(/, copy: r_/g) ?? []).length
    await empty.m.workspace.remove('out')
    await timed(c.createWsPlain, () => mkPlain(n, empty.ws))
    await empty.m.workspace.remove('out')
    await timed(c.createScratch, () => mkPlain(n))
    // The filesystem's own cost: the same loop, plain sh on the host, next to the workspaces.
    const hostDir = join(base, 'host')
    mkdirSync(hostDir)
    await timed(c.hostSh, async () =>
      execFileSync('/bin/sh', [join(dir, 'mk.sh'), String(n)], { cwd: hostDir, env: {} }),
    )
    rmSync(hostDir, { recursive: true, force: true })
  }
}
for (const mgr of [...managers, empty]) await mgr.m.dispose()
await sandbox.config.workspace.dispose(root)
await sandbox.dispose()
rmSync(base, { recursive: true, force: true })
const loadEnd = loadavg()[0]

const s = Object.fromEntries(
  SIZES.map((n) => [
    n,
    Object.fromEntries(Object.entries(cols[n]).map(([k, v]) => [k, percentile(v, 50)])),
  ]),
)
const d = (n, k) => (n === 1 ? '' : ` (+${f(s[n][k] - s[1][k])})`)
const row = (label, k) =>
  `| ${label} | ${SIZES.map((n) => `${f(s[n][k])}${d(n, k)}`).join(' | ')} |`
const met = ratio50 <= 1.1
const body = `
Machine: ${cpus().length} CPUs (nproc), ${cpus()[0]?.model?.trim() ?? 'unknown'}, Node ${process.version}, ${process.platform} ${process.arch}, run as uid ${process.getuid?.()}; 1-min load average ${loadStart.toFixed(1)} at start, ${loadEnd.toFixed(1)} at end (the machine is shared${loadStart > 1.5 || loadEnd > 1.5 ? '; at this load the absolute figures are noisy, compare within a table' : ''}); ${new Date().toISOString().slice(0, 10)}.
Command: \`npm run bench -- workspace\` (or \`npx tsc -p tsconfig.build.json && node bench/workspace.mjs\`). Real managers, real bubblewrap,
the forged tools called through \`ctx.tools\` (gate, validation, output spooled). Skill \`bench-ws\`: \`noop.sh\` (\`:\`) declared in a
\`skillhost.yaml\` sidecar as \`run_bench_ws_noop\` and, undeclared, run as \`run_bench_ws_script { script: 'noop.sh' }\`; \`mk.sh N\` creates N small files under \`out/\`.
Times in ms, wall clock per call.

**a. Undeclared vs declared** (${ROUNDS_A} rounds, the four columns interleaved in rotating order; same session workspace, empty):

| call | p50 | p95 |
|---|---:|---:|
| \`runSkillScript\`, no workspace (scratch cwd) | ${f(sa.plain.p50)} | ${f(sa.plain.p95)} |
| \`runSkillScript\` with the empty session workspace | ${f(sa.plainWs.p50)} | ${f(sa.plainWs.p95)} |
| declared tool \`run_bench_ws_noop\` | ${f(sa.declared.p50)} | ${f(sa.declared.p95)} |
| undeclared tool \`run_bench_ws_script { script: 'noop.sh' }\` | ${f(sa.undeclared.p50)} | ${f(sa.undeclared.p95)} |

Ratio undeclared/declared: ${ratio50.toFixed(3)} at p50, ${ratioMedian.toFixed(3)} median of per-round ratios (target ≤ 1.1×: **${met ? 'met' : 'NOT met'}**).
The workspace's own per-call cost (empty workspace: two walks, the bind mount, the lock): ${f(sa.plainWs.p50 - sa.plain.p50)} ms at p50;
the tool wrapper on top (gate, validation, output spooled, changes reported): ${f(sa.declared.p50 - sa.plainWs.p50)} ms (differences under ~1 ms are within the noise here).

**b. 1, 100 and 1,000 files** (${ROUNDS_B} rounds, sizes interleaved; p50 in ms, in brackets the difference from the 1-file case):

| measure | 1 file | 100 files | 1,000 files |
|---|---:|---:|---:|
${row('one walk of the workspace (`SessionWorkspace.snapshot`)', 'walk')}
${row('(i) declared noop, workspace holding N files (two walks + watchdog)', 'noop')}
${row('(ii) undeclared `mk.sh N` tool call creating N files (walks + spooling)', 'create')}
${row('(ii) same script, `runSkillScript` with a workspace (walks, no spooling)', 'createWsPlain')}
${row('(ii) same script, `runSkillScript` without a workspace (tmpfs, no walks)', 'createScratch')}
${row('(ii) same loop, plain `sh` on the host, same filesystem (no sandbox)', 'hostSh')}
${row('(iii) `workspace_list` on N files (first page of 200)', 'list')}

Spooled copies per (ii) call: ${SIZES.map((n) => `${n} created → ${spooled[n]}`).join(', ')} (\`WORKSPACE_SPOOL_LIMITS.files\` = ${WORKSPACE_SPOOL_LIMITS.files}; the rest are named with "not spooled").
The b rounds also create and remove 1,000 files on disk between calls, which is why their 1-file baseline is above a's figures.
The watchdog walks the workspace only after ${250} ms of a call, so these short calls never pay for it; a long call pays one walk (first row) per tick, ticks at least 250 ms and at least 10 walks' time apart.
Creating files on this disk (ext4 on a virtual disk) costs about ${((s[1000].hostSh - s[1].hostSh) / 999).toFixed(2)} ms each even outside the sandbox (the plain \`sh\` row), so the
(ii) differences are mostly the filesystem: spooling alone is the first (ii) row minus the second; the walks are the first row, twice.
A walk lstats a folder's files in batches of 64 in flight: awaited one by one, as before, one walk of 1,000 files took 32.2 ms p50 in this
benchmark (load 4.1) and 28-56 ms against 15-19 ms in an interleaved A/B of the two walks.
Filling the workspaces through \`manager.workspace.put\` (each put keeps a running total and walks only near the cap): 1,000 files took ${f(putMs[1000].total)} ms in all, the last 100 puts ${f(putMs[1000].last.p50)} ms p50 each, against ${f(putMs[100].last.p50)} ms at 100 files.
`
console.log(body)
writeSection('Session workspace (tier 3)', body)
