// Discovery benchmark: FileSystemSkillSource over 10,000 generated skills,
// against a bare baseline (readdir + readFile of the same files, no parsing)
// measured in the same run with the same concurrency. Run after building:
//   npx tsc -p tsconfig.build.json && node bench/discovery.mjs [count]

import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileSystemSkillSource } from '../dist/sources/index.js'
import { machine, writeSection } from './lib.mjs'

const COUNT = Number(process.argv[2] ?? 10_000)
const ROUNDS = 5
const CONCURRENCY = 64

async function generate(root) {
  for (let i = 0; i < COUNT; i += 500) {
    const batch = []
    for (let j = i; j < Math.min(COUNT, i + 500); j++) {
      const name = `skill-${String(j).padStart(5, '0')}`
      const dir = join(root, name)
      const text = `---\nname: ${name}\ndescription: Generated skill number ${j} for the discovery benchmark; it does nothing useful.\nlicense: MIT\nversion: 1.0.${j}\nmetadata:\n  author: bench\n  category: test\n---\n\n# ${name}\n\n## Usage\n\n${'Some body text. '.repeat(40)}\n`
      batch.push(mkdir(dir).then(() => writeFile(join(dir, 'SKILL.md'), text)))
    }
    await Promise.all(batch)
  }
}

async function pool(items, n, fn) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: n }, worker))
}

// The floors: list the root, list each skill folder, read each file in it;
// once through the thread pool and once with direct synchronous calls.
function baselineSync(root) {
  let count = 0
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory()) continue
    const dir = join(root, d.name)
    for (const f of readdirSync(dir)) readFileSync(join(dir, f))
    count++
  }
  return count
}

async function baselineAsync(root) {
  let count = 0
  const dirs = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory())
  await pool(dirs, CONCURRENCY, async (d) => {
    const dir = join(root, d.name)
    for (const f of await readdir(dir)) await readFile(join(dir, f))
    count++
  })
  return count
}

async function discover(root, discoveryIo) {
  const source = new FileSystemSkillSource({
    roots: [root],
    discoveryIo,
    limits: { concurrency: CONCURRENCY },
  })
  let count = 0
  for await (const _ of source.discover({
    report: (p) => {
      throw new Error(p.message)
    },
  }))
    count++
  return count
}

async function time(fn) {
  const start = process.hrtime.bigint()
  const n = await fn()
  return { n, ms: Number(process.hrtime.bigint() - start) / 1e6 }
}

const root = await mkdtemp(join(tmpdir(), 'skillhost-bench-'))
try {
  await generate(root)
  const runs = {
    baselineSync: async () => baselineSync(root),
    baselineAsync: () => baselineAsync(root),
    discoverSync: () => discover(root, 'sync'),
    discoverAsync: () => discover(root, 'async'),
  }
  // Warm the page cache and the JIT once, then interleave the measurements.
  for (const run of Object.values(runs)) await run()
  const times = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, run] of Object.entries(runs)) {
      const t = await time(run)
      if (t.n !== COUNT) throw new Error(`${k}: expected ${COUNT} skills, got ${t.n}`)
      times[k].push(t.ms)
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const ms = Object.fromEntries(
    Object.entries(times).map(([k, xs]) => [k, Number(median(xs).toFixed(1))]),
  )
  const perSec = (m) => Math.round((COUNT / m) * 1000)
  const result = {
    skills: COUNT,
    rounds: ROUNDS,
    medianMs: ms,
    skillsPerSec: Object.fromEntries(Object.entries(ms).map(([k, m]) => [k, perSec(m)])),
    // Each discovery mode against its own kind of baseline, and the default
    // (sync) against the fastest baseline of all.
    ratioSyncToSyncBaseline: Number((ms.baselineSync / ms.discoverSync).toFixed(2)),
    ratioAsyncToAsyncBaseline: Number((ms.baselineAsync / ms.discoverAsync).toFixed(2)),
    loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
    machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  }
  console.log(JSON.stringify(result, null, 2))
  const row = (label, key) => `| ${label} | ${ms[key]} | ${result.skillsPerSec[key]} |`
  writeSection(
    'Discovery',
    [
      `Machine: ${machine()}; 1-min load average ${result.loadAverage[0]} at the end (the machine is shared).`,
      `Command: \`npm run bench -- discovery\`. ${COUNT} generated skill folders (one ~900-byte SKILL.md each, flat`,
      'frontmatter with metadata), warm page cache; median of 5 interleaved rounds. Baselines list the root, list each',
      'skill folder and read every file in it with no parsing, through the thread pool (async, 64 in flight) and with',
      'direct synchronous calls. `discoveryIo: sync` is the default: direct syscalls in ~10 ms slices.',
      '',
      '| run | median ms | skills/s |',
      '|---|---:|---:|',
      row('baseline, sync readdir + readFile', 'baselineSync'),
      row('baseline, async readdir + readFile', 'baselineAsync'),
      row('FileSystemSkillSource, discoveryIo sync (default)', 'discoverSync'),
      row('FileSystemSkillSource, discoveryIo async', 'discoverAsync'),
      '',
      `Ratio to baseline: sync ${result.ratioSyncToSyncBaseline} (against the sync baseline), async ${result.ratioAsyncToAsyncBaseline} (against the async baseline).`,
      `Targets: >= 10,000 skills/s — ${result.skillsPerSec.discoverSync >= 10_000 ? 'met' : 'NOT met'} (${result.skillsPerSec.discoverSync}); >= 0.5 of the baseline — ${result.ratioSyncToSyncBaseline >= 0.5 ? 'met' : 'NOT met'} against the sync baseline, ${result.ratioAsyncToAsyncBaseline >= 0.5 ? 'met' : 'NOT met'} for async against async.`,
      'Optimizations so far: a fast path for flat frontmatter (the yaml package costs 60-100 µs a document; the fast path',
      'accepts a strict subset and is property-tested against yaml), SKILL.md stat taken from its open descriptor,',
      'and synchronous sliced I/O (3-5x faster than the thread pool here). Then, from a CPU profile: the sync mode runs',
      'each folder with direct calls (no promise per call) and hands skills on in batches; the frontmatter fast path is a',
      'character scan whose common keys are interned literals (interning a sliced key per property cost ~5 µs a skill);',
      'only the head of SKILL.md through the closing fence is decoded (the rest is checked with isUtf8), so entries no',
      'longer keep the whole text alive; one-shot sha1 for the version; one reused read buffer for sync reads; plain',
      'path concatenation for directory entries; cheaper validation of valid names; the async reader uses callbacks',
      'instead of a FileHandle.',
      'Since issue 12 a source remembers every folder it read (the per-folder cache that makes refreshes and later',
      'sessions incremental) and collects a walk before handing it to its callers (one walk shared by all of them):',
      'measured A/B against the code before it on the same corpus, a first discovery costs 1.05-1.10x (the map of folders',
      'and the shared-walk bookkeeping); every discovery after it is the cheaper one (see the incremental section).',
    ].join('\n'),
  )
} finally {
  await rm(root, { recursive: true, force: true })
}
