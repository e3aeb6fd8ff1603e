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

/** Runs `node dist/cli/main.js ...args` to completion: wall time and peak RSS. */
function timeCli(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    // The child reports its own peak RSS on exit (VmHWM) through an inherited preload.
    const child = spawn(
      process.execPath,
      ['--import', 'data:text/javascript,' + encodeURIComponent(PEAK_HOOK), cli, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000
      const peak = /skillhost-bench-peak-kib=(\d+)/.exec(stderr)
      resolve({ seconds, code, peakMiB: peak ? Number(peak[1]) / 1024 : Number.NaN })
    })
  })
}
const PEAK_HOOK = `process.on('exit', () => {
  const status = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8')
  const m = /VmHWM:\\s+(\\d+)/.exec(status)
  process.stderr.write('skillhost-bench-peak-kib=' + (m ? m[1] : 'NaN') + '\\n')
})`

/** `serve` over stdio with the official client: spawn to initialize answered, to the first tools/list. */
async function timeServe() {
  const started = performance.now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'serve', '--no-scripts', ...roots],
    stderr: 'ignore',
  })
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(transport, { timeout: 600_000 })
  const initialized = (performance.now() - started) / 1000
  await client.listTools(undefined, { timeout: 600_000 })
  const listed = (performance.now() - started) / 1000
  await client.close()
  return { initialized, listed }
}

function timeBareWalk() {
  const started = performance.now()
  execFileSync('find', [...roots, '-name', 'SKILL.md'], { stdio: 'ignore' })
  return (performance.now() - started) / 1000
}

const corpus = describeCorpus()
// Warm the page cache once so every row reads the same warm filesystem.
timeBareWalk()
const bare = timeBareWalk()
const list = await timeCli(['list', ...roots])
const listJson = await timeCli(['list', '--json', ...roots])
const validate = await timeCli(['validate', ...roots])
const serve = await timeServe()
const loadAtEnd = loadavg()[0]

const rows = [
  ['bare walk (`find -name SKILL.md`), the floor', `${bare.toFixed(1)} s`, '', ''],
  [
    '`skillhost list`',
    `${list.seconds.toFixed(1)} s`,
    `${list.peakMiB.toFixed(0)} MiB`,
    '≤ 10 s, ≤ 200 MB',
  ],
  [
    '`skillhost list --json`',
    `${listJson.seconds.toFixed(1)} s`,
    `${listJson.peakMiB.toFixed(0)} MiB`,
    '',
  ],
  [
    '`skillhost validate`',
    `${validate.seconds.toFixed(1)} s`,
    `${validate.peakMiB.toFixed(0)} MiB`,
    '',
  ],
  [
    '`serve` (stdio): spawn to `initialize` answered',
    `${serve.initialized.toFixed(2)} s`,
    '',
    '≤ 1 s',
  ],
  ['`serve` (stdio): spawn to first `tools/list` answered', `${serve.listed.toFixed(1)} s`, '', ''],
]
const table = [
  '| measure | wall clock | peak RSS | target |',
  '|---|---:|---:|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n')
console.log(table)
const names = roots.map((r) => `\`${r.split('/').pop()}\``).join(', ')
writeSection(
  'Big real corpora',
  `Machine: ${machine()}; 1-min load average ${loadAtStart.toFixed(1)} at start, ${loadAtEnd.toFixed(1)} at end.
Command: \`SKILLHOST_CORPUS="<folders>" npm run bench -- real-corpus\`, over ${names} (fetched, not in the
repository): ${corpus.skills.toLocaleString('en-US')} SKILL.md files, ${corpus.files.toLocaleString('en-US')} files in ${corpus.folders.toLocaleString('en-US')} folders,
${corpus.megabytes.toLocaleString('en-US')} MB, folders up to ${corpus.depth} deep. Each command is the built CLI in its own process
(exit statuses ${list.code}/${listJson.code}/${validate.code}: problems found in the corpus are reported, not fatal to the run);
peak RSS is the process's own VmHWM. \`serve\` answers \`initialize\` before discovery and holds the client's
other requests until the catalog is ready.

${table}
`,
)
