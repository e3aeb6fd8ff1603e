// Tier-3 benchmark: sandboxed (bubblewrap) vs plain spawn, side by side, plus
// 50 concurrent script calls checked for leaked processes and workspaces.
// Run after `npx tsc -p tsconfig.build.json`: node bench/scripts.mjs
import { spawn } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileSystemSkillSource } from '../dist/sources/index.js'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
} from '../dist/tiers/scripts/index.js'
import { filesFromSource, runSkillScript } from '../dist/tiers/scripts/internal.js'
import { NOOP_SH, SYSTEM_READ_PATHS, scriptBenchConfig } from './lib.mjs'

const SYSTEM = SYSTEM_READ_PATHS
const ROUNDS = { true: 200, python: 40, node: 40 }

function plain(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: {} })
    child.stdout.resume()
    child.stderr.resume()
    child.once('error', reject)
    child.once('close', resolve)
  })
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: pct(s, 50), p95: pct(s, 95) }
}

function liveWithMarker(marker) {
  let n = 0
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1')
      if (stat.charAt(stat.lastIndexOf(')') + 2) === 'Z') continue
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker)) n++
    } catch {}
  }
  return n
}

const base = mkdtempSync(join(tmpdir(), 'skillhost-bench-'))
chmodSync(base, 0o755)
const handle = await createBubblewrapHandle()
const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
const rawPolicy = {
  filesystem: { allowRead: SYSTEM, denyRead: [], allowWrite: [], denyWrite: [] },
  network: { allowedDomains: [] },
}
const request = (argv) => ({
  argv,
  cwd: '/',
  policy: rawPolicy,
  env: {},
  timeoutMs: 10_000,
  maxOutputBytes: 65_536,
})
const WARM_IDLE_MS = 60_000
const sandboxed = (argv) => handle.run(request(argv))

// Bare bwrap with the fewest options that still make a sandbox (every
// namespace, a read-only /usr, /proc and /dev): the floor the handle's own
// overhead is compared against, measured in the same run.
const BWRAP_BARE = [
  '/usr/bin/bwrap',
  ...'--unshare-all --die-with-parent --new-session --clearenv --ro-bind /usr /usr'.split(' '),
  ...'--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64'.split(' '),
  ...'--proc /proc --dev /dev'.split(' '),
]

const cases = [
  ['/bin/true', ['/bin/true'], ROUNDS.true],
  ['python3 -c pass', ['/usr/bin/python3', '-c', 'pass'], ROUNDS.python],
  ['node -e 0', ['/usr/bin/node', '-e', '0'], ROUNDS.node],
]
const loadBefore = loadavg()[0]
const rows = []
for (const [label, argv, rounds] of cases) {
  // A fresh warm handle per command: its first call starts the warm sandbox (the cold first call).
  const warmHandle = await createBubblewrapHandle({ warmIdleMs: WARM_IDLE_MS })
  let t0 = performance.now()
  const firstRun = await warmHandle.run(request(argv))
  const firstCall = performance.now() - t0
  if (firstRun.exitCode !== 0)
    throw new Error(`${label} failed warm: ${Buffer.from(firstRun.stderr)}`)
  for (let i = 0; i < 5; i++) {
    await plain(argv)
    await plain([...BWRAP_BARE, ...argv])
    await sandboxed(argv)
    await warmHandle.run(request(argv))
  }
  const a = []
  const w = []
  const b = []
  const h = []
  // Interleaved, so machine noise hits every column alike.
  for (let i = 0; i < rounds; i++) {
    let t = performance.now()
    await plain(argv)
    a.push(performance.now() - t)
    t = performance.now()
    await plain([...BWRAP_BARE, ...argv])
    w.push(performance.now() - t)
    t = performance.now()
    const r = await sandboxed(argv)
    b.push(performance.now() - t)
    if (r.exitCode !== 0)
      throw new Error(`${label} failed in the sandbox: ${Buffer.from(r.stderr)}`)
    t0 = performance.now()
    const hr = await warmHandle.run(request(argv))
    h.push(performance.now() - t0)
    if (hr.exitCode !== 0) throw new Error(`${label} failed warm: ${Buffer.from(hr.stderr)}`)
  }
  await warmHandle.dispose?.()
  const p = stats(a)
  const bare = stats(w)
  const s = stats(b)
  const warm = stats(h)
  rows.push({
    warm,
    firstCall,
    warm50: warm.p50 - p.p50,
    warm95: warm.p95 - p.p95,
    label,
    rounds,
    plain: p,
    bare,
    sandboxed: s,
    overhead50: s.p50 - p.p50,
    overhead95: s.p95 - p.p95,
    bare50: bare.p50 - p.p50,
  })
}

// End to end through runSkillScript (scratch dir, policy derivation + check, argv, redaction).
const config = scriptBenchConfig({
  handle,
  workspace,
  translator: createPathTranslator({ hiddenHostPaths: [base] }),
})
const root = await workspace.materialize({ id: 'bench', version: '1' }, [
  NOOP_SH.file,
  {
    path: 'busy.sh',
    read: async () =>
      new TextEncoder().encode(
        `setsid sh -c 'trap "" TERM; while :; do sleep 1; done' "$1" </dev/null >/dev/null 2>&1 &\nsleep 0.2\necho "$1"\n`,
      ),
  },
])
const noop = NOOP_SH.script
const e2e = []
for (let i = 0; i < 60; i++) {
  const t = performance.now()
  await runSkillScript(config, { skill: 'bench', root, script: noop, args: {} })
  if (i >= 10) e2e.push(performance.now() - t)
}
const e2eStats = stats(e2e)
// The same, warm: one warm sandbox serves every call of the key.
const warmE2eHandle = await createBubblewrapHandle({ warmIdleMs: WARM_IDLE_MS })
const warmConfig = { ...config, handle: warmE2eHandle }
const e2eWarm = []
for (let i = 0; i < 60; i++) {
  const t = performance.now()
  const r = await runSkillScript(warmConfig, { skill: 'bench', root, script: noop, args: {} })
  if (r.exitCode !== 0) throw new Error(`noop.sh failed warm: ${r.stderr}`)
  if (i >= 10) e2eWarm.push(performance.now() - t)
}
await warmE2eHandle.dispose?.()
const e2eWarmStats = stats(e2eWarm)

// 50 concurrent calls, each leaving a TERM-trapping setsid daemon behind.
const marker = `benchmark${process.pid}x`
const busy = {
  name: 'busy',
  path: 'busy.sh',
  description: 'busy',
  interpreter: 'sh',
  params: [{ name: 'token', type: 'string', positional: true, required: true }],
}
const rssBefore = process.memoryUsage().rss
const t0 = performance.now()
const results = await Promise.all(
  Array.from({ length: 50 }, () =>
    runSkillScript(config, { skill: 'bench', root, script: busy, args: { token: marker } }),
  ),
)
const concurrentMs = performance.now() - t0
const ok = results.filter((r) => r.exitCode === 0 && r.stdout === `${marker}\n`).length
const leakedProcs = liveWithMarker(marker)
const leakedScratch = readdirSync(workspace.scratchDir).length
await workspace.dispose(root)
const leakedRoots = readdirSync(workspace.skillsDir).length
const rssDeltaMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024

// Materialization from a FileSystemSkillSource: N small files in N/100 folders.
// Linear when one scan serves every read (it used to rescan per file).
async function materializeMs(n) {
  const dir = mkdtempSync(join(tmpdir(), 'skillhost-mat-'))
  mkdirSync(join(dir, 's'))
  writeFileSync(join(dir, 's/SKILL.md'), '---\nname: s\ndescription: many files\n---\nbody\n')
  for (let i = 0; i < n; i++) {
    const sub = join(dir, 's', `d${Math.floor(i / 100)}`)
    if (i % 100 === 0) mkdirSync(sub)
    writeFileSync(join(sub, `f${i}.txt`), `file ${i}\n`)
  }
  const source = new FileSystemSkillSource({ roots: [dir], limits: { maxFilesPerSkill: n + 10 } })
  let ref
  for await (const d of source.discover()) ref = { id: d.id, version: d.version }
  const t = performance.now()
  const made = await workspace.materialize(ref, await filesFromSource(source, ref))
  const ms = performance.now() - t
  await workspace.dispose(made)
  rmSync(dir, { recursive: true, force: true })
  return ms
}
const mat200 = Math.min(await materializeMs(200), await materializeMs(200))
const mat2000 = Math.min(await materializeMs(2000), await materializeMs(2000))
await handle.dispose?.()
rmSync(base, { recursive: true, force: true })

const loadAfter = loadavg()[0]
const f = (n) => n.toFixed(1)
const cpu = cpus()[0]?.model ?? 'unknown'
const lines = [
  '## Scripts (tier 3)',
  '',
  `Machine: ${cpus().length} CPUs (nproc), ${cpu}, Node ${process.version}, ${process.platform} ${process.arch}, run as uid ${process.getuid?.()}; 1-min load average ${loadBefore.toFixed(1)} at start, ${loadAfter.toFixed(1)} at the end (the machine is shared); ${new Date().toISOString().slice(0, 10)}.`,
  'Command: `npx tsc -p tsconfig.build.json && node bench/scripts.mjs`. Plain = `spawn` with `env: {}`;',
  'sandboxed = `createBubblewrapHandle().run` (bwrap, limits by bash `ulimit`, read-only /usr /bin /lib /lib64, generated /etc, post-call survivor check).',
  'Bare bwrap = `bwrap --unshare-all --die-with-parent --new-session --clearenv` with read-only /usr, /proc and /dev and nothing else, spawned the same way as plain.',
  'Warm = `createBubblewrapHandle({ warmIdleMs })` (docs/security.md, "Warm sandbox"): the same request, run by the supervisor of one kept sandbox;',
  'its cold first call (warm sandbox started, then the call) is measured once per command on a fresh handle.',
  'Rounds interleaved plain/bare/cold/warm; times in ms, wall clock per call including process exit and pipe close. Overheads are over plain spawn.',
  '',
  '| command | rounds | plain p50 | bare bwrap p50 | cold p50 | warm p50 | warm p95 | cold first call | bare bwrap overhead p50 | cold overhead p50 | overhead p50 | overhead p95 |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| \`${r.label}\` | ${r.rounds} | ${f(r.plain.p50)} | ${f(r.bare.p50)} | ${f(r.sandboxed.p50)} | ${f(r.warm.p50)} | ${f(r.warm.p95)} | ${f(r.firstCall)} | ${f(r.bare50)} | ${f(r.overhead50)} | ${f(r.warm50)} | ${f(r.warm95)} |`,
  ),
  '',
  '"overhead p50" and "overhead p95" are the warm path\'s; "cold overhead p50" is a fresh bwrap per call.',
  `Goal: warm overhead p50 ≤ bare bwrap overhead p50 for \`/bin/true\` — measured ${f(rows[0].warm50)} ms vs ${f(rows[0].bare50)} ms (${rows[0].warm50 <= rows[0].bare50 ? 'met' : 'NOT met'}); cold ${f(rows[0].overhead50)} ms.`,
  '',
  `End to end \`runSkillScript\` (\`sh noop.sh\`: scratch tmpfs, policy derived and checked, output redacted): cold p50 ${f(e2eStats.p50)} ms, p95 ${f(e2eStats.p95)} ms; warm p50 ${f(e2eWarmStats.p50)} ms, p95 ${f(e2eWarmStats.p95)} ms (50 calls each).`,
  '',
  `50 concurrent calls, each leaving a TERM-trapping \`setsid\` daemon: ${ok}/50 succeeded in ${f(concurrentMs)} ms; leaked processes ${leakedProcs}, leaked scratch dirs ${leakedScratch}, leaked workspace roots ${leakedRoots}; host RSS change ${f(rssDeltaMb)} MB.`,
  '',
  `Materializing a skill from a \`FileSystemSkillSource\` (best of 2): 200 files ${f(mat200)} ms, 2,000 files ${f(mat2000)} ms; ratio ${(mat2000 / mat200).toFixed(1)} for 10× the files (linear ≈ 10; it was quadratic, 102 s for 2,000 files).`,
  '',
]
const section = lines.join('\n')
console.log(section)

const file = new URL('./RESULTS.md', import.meta.url)
let text = ''
try {
  text = readFileSync(file, 'utf8')
} catch {
  text = '# Benchmark results\n\n'
}
// Replace only this section: from its heading to the next `## ` heading.
const start = text.indexOf('## Scripts (tier 3)')
if (start < 0) text = `${text.trimEnd()}\n\n${section}`
else {
  const next = text.indexOf('\n## ', start + 1)
  text = text.slice(0, start) + section + (next < 0 ? '' : `\n${text.slice(next + 1)}`)
}
writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`)
if (leakedProcs + leakedScratch + leakedRoots > 0 || ok !== 50) process.exitCode = 1
