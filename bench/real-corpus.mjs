// Big real corpora (issue 25): `skillhost list`, `validate` and `serve`'s
// first answers over public skill collections, as a user points skillhost
// at them. The collections are not in the repository (licences): fetch them
// and give their folders, e.g.
//   SKILLHOST_CORPUS="/work/corpus/a /work/corpus/b" npm run bench -- real-corpus
// Without SKILLHOST_CORPUS the benchmark says so and exits 0.
// Each command runs as its own process (the built CLI), with its peak RSS
// read from /proc (VmHWM) just before it exits; the baseline in the same run
// is the bare walk: `find ROOTS -name SKILL.md` (readdir of every folder).
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { machine, writeSection } from './lib.mjs'

const roots = (process.env.SKILLHOST_CORPUS ?? '').split(/\s+/).filter(Boolean)
if (roots.length === 0) {
  console.log('real-corpus: set SKILLHOST_CORPUS to the fetched collections’ folders; skipped')
  process.exit(0)
}
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
const loadAtStart = loadavg()[0]

/** Folders, files, SKILL.md files, bytes and the deepest folder under the roots. */
function describeCorpus() {
  const count = (args) =>
    Number(execFileSync('sh', ['-c', `find ${args} | wc -l`], { encoding: 'utf8' }).trim())
  const quoted = roots.map((r) => `'${r.replaceAll("'", "'\\''")}'`).join(' ')
  const depth = execFileSync(
    'sh',
    ['-c', `find ${quoted} -type d -printf '%d\\n' | sort -n | tail -1`],
    { encoding: 'utf8' },
  ).trim()
  const bytes = execFileSync('sh', ['-c', `du -sm ${quoted} | awk '{s+=$1} END {print s}'`], {
    encoding: 'utf8',
  }).trim()
  return {
    skills: count(`${quoted} -name SKILL.md`),
    files: count(`${quoted} -type f`),
    folders: count(`${quoted} -type d`),
    megabytes: Number(bytes),
    depth: Number(depth),
  }
}

/**
 * The Node.js runtimes to measure: this process's, and each one named in
 * SKILLHOST_BENCH_NODES (space-separated paths), else each one `npm test`
 * installed from the npm registry (node_modules/.cache/skillhost-node/<major>).
 */
function runtimes() {
  const named = (process.env.SKILLHOST_BENCH_NODES ?? '').split(/\s+/).filter(Boolean)
  const cached = ['22', '24']
    .map((major) =>
      fileURLToPath(
        new URL(
          `../node_modules/.cache/skillhost-node/${major}/node_modules/node/bin/node`,
          import.meta.url,
        ),
      ),
    )
    .filter((path) => existsSync(path))
  const paths = [process.execPath, ...(named.length > 0 ? named : cached)]
  const seen = new Map()
  for (const path of paths) {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim()
    if (![...seen.values()].includes(version)) seen.set(path, version)
  }
  return [...seen].map(([path, version]) => ({ path, version }))
}

/** Runs `node dist/cli/main.js ...args` to completion: wall time, CPU time and peak RSS. */
function timeCli(node, args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    // The child reports its own peak RSS and CPU time on exit through an inherited preload.
    const child = spawn(
      node,
      ['--import', `data:text/javascript,${encodeURIComponent(PEAK_HOOK)}`, cli, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } },
    )
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000
      const peak = /skillhost-bench-peak-kib=(\d+) cpu-us=(\d+)/.exec(stderr)
      resolve({
        seconds,
        code,
        peakMB: peak ? (Number(peak[1]) * 1024) / 1e6 : Number.NaN,
        cpu: peak ? Number(peak[2]) / 1e6 : Number.NaN,
      })
    })
  })
}
const PEAK_HOOK = `process.on('exit', () => {
  const status = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8')
  const m = /VmHWM:\\s+(\\d+)/.exec(status)
  const cpu = process.cpuUsage()
  process.stderr.write('skillhost-bench-peak-kib=' + (m ? m[1] : 'NaN') + ' cpu-us=' + (cpu.user + cpu.system) + '\\n')
})`

/** Peak RSS of a running process, in MB (VmHWM). */
function peakOf(pid) {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? (Number(m[1]) * 1024) / 1e6 : Number.NaN
}

/** `serve` over stdio with the official client: spawn to initialize answered, to the first tools/list, and its peak RSS then. */
async function timeServe(node, env = {}) {
  const started = performance.now()
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, 'serve', '--no-scripts', ...roots],
    env: { ...process.env, ...env },
    stderr: 'ignore',
  })
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport, { timeout: 600_000 })
  const initialized = (performance.now() - started) / 1000
  await client.listTools(undefined, { timeout: 600_000 })
  const listed = (performance.now() - started) / 1000
  const peakMB = transport.pid === null ? Number.NaN : peakOf(transport.pid)
  await client.close()
  return { initialized, listed, peakMB }
}

function timeBareWalk() {
  const started = performance.now()
  execFileSync('find', [...roots, '-name', 'SKILL.md'], { stdio: 'ignore' })
  return (performance.now() - started) / 1000
}

/** A young generation capped at 2 MB per semi-space: what NODE_OPTIONS can ask of any runtime. */
const SMALL_YOUNG = { NODE_OPTIONS: '--max-semi-space-size=2' }

const corpus = describeCorpus()
// Warm the page cache once so every row reads the same warm filesystem.
timeBareWalk()
const bare = timeBareWalk()
const measured = []
for (const runtime of runtimes()) {
  const node = runtime.path
  console.log(`measuring on Node ${runtime.version}`)
  measured.push({
    runtime,
    list: await timeCli(node, ['list', ...roots]),
    listSmall: await timeCli(node, ['list', ...roots], SMALL_YOUNG),
    listJson: await timeCli(node, ['list', '--json', ...roots]),
    validate: await timeCli(node, ['validate', ...roots]),
    serve: await timeServe(node),
    serveSmall: await timeServe(node, SMALL_YOUNG),
  })
}
const loadAtEnd = loadavg()[0]

const cliCell = (r) =>
  `${r.seconds.toFixed(1)} s (CPU ${r.cpu.toFixed(1)} s), ${r.peakMB.toFixed(0)} MB`
const rows = [
  [
    'bare walk (`find -name SKILL.md`), the floor',
    ...measured.map(() => `${bare.toFixed(1)} s`),
    '',
  ],
  ['`skillhost list`', ...measured.map((m) => cliCell(m.list)), '≤ 10 s, ≤ 200 MB'],
  [
    '`skillhost list`, `NODE_OPTIONS=--max-semi-space-size=2`',
    ...measured.map((m) => cliCell(m.listSmall)),
    '≤ 10 s, ≤ 200 MB',
  ],
  ['`skillhost list --json`', ...measured.map((m) => cliCell(m.listJson)), ''],
  ['`skillhost validate`', ...measured.map((m) => cliCell(m.validate)), ''],
  [
    '`serve` (stdio): spawn to `initialize` answered',
    ...measured.map((m) => `${m.serve.initialized.toFixed(2)} s`),
    '≤ 1 s',
  ],
  [
    '`serve` (stdio): spawn to first `tools/list` answered, peak RSS then',
    ...measured.map((m) => `${m.serve.listed.toFixed(1)} s, ${m.serve.peakMB.toFixed(0)} MB`),
    '',
  ],
  [
    'the same, `NODE_OPTIONS=--max-semi-space-size=2`',
    ...measured.map(
      (m) => `${m.serveSmall.listed.toFixed(1)} s, ${m.serveSmall.peakMB.toFixed(0)} MB`,
    ),
    '',
  ],
]
const table = [
  `| measure | ${measured.map((m) => `Node ${m.runtime.version}`).join(' | ')} | target |`,
  `|---|${measured.map(() => '---:|').join('')}---|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n')
console.log(table)
const names = roots.map((r) => `\`${r.split('/').pop()}\``).join(', ')
const codes = measured.map((m) => `${m.list.code}/${m.listJson.code}/${m.validate.code}`).join(', ')
writeSection(
  'Big real corpora',
  `Machine: ${machine()}; 1-min load average ${loadAtStart.toFixed(1)} at start, ${loadAtEnd.toFixed(1)} at end.
Command: \`SKILLHOST_CORPUS="<folders>" npm run bench -- real-corpus\`, over ${names} (fetched, not in the
repository): ${corpus.skills.toLocaleString('en-US')} SKILL.md files, ${corpus.files.toLocaleString('en-US')} files in ${corpus.folders.toLocaleString('en-US')} folders,
${corpus.megabytes.toLocaleString('en-US')} MB, folders up to ${corpus.depth} deep. Each command is the built CLI in its own process, on each
runtime in turn (exit statuses ${codes}: problems found in the corpus are reported, not fatal to the run);
peak RSS is the process's own VmHWM in MB (10^6 bytes), CPU its user + system time. \`serve\` answers \`initialize\` before discovery and holds the client's
other requests until the catalog is ready.

${table}
`,
)
