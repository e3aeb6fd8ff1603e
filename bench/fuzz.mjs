// The long fuzz run: every property in test/fuzz with many more cases than
// `npm test` runs. `npm run fuzz` for 20,000 cases per property, or
// `npm run fuzz -- 5000`. Rewrites the "Fuzzing" section of bench/RESULTS.md.
// Not part of `npm run bench`: it takes minutes, and it measures robustness, not speed.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { machine, writeSection } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const runs = Number(process.argv[2] ?? 20_000)
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`runs must be a positive integer, got '${process.argv[2]}'`)
  process.exit(2)
}
// Properties that evaluate a real QuickJS guest per case run a tenth as many (see fuzz-config.ts).
const slowRuns = Math.max(1, Math.ceil(runs / 10))

const dir = mkdtempSync(join(tmpdir(), 'skillhost-fuzz-'))
const report = join(dir, 'report.json')
const load = loadavg()[0].toFixed(1)
const started = Date.now()
const child = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    'test/fuzz',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    // A long run must not trip the per-test timeout meant for npm test.
    '--testTimeout=0',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, SKILLHOST_FUZZ_RUNS: String(runs) } },
)
const seconds = ((Date.now() - started) / 1000).toFixed(0)
const result = JSON.parse(readFileSync(report, 'utf8'))
rmSync(dir, { recursive: true, force: true })

const rows = []
let total = 0
for (const file of result.testResults) {
  const name = file.name.slice(file.name.indexOf('test/fuzz/'))
  for (const t of file.assertionResults) {
    const cases = /a tenth of the runs/.test(t.title) ? slowRuns : runs
    total += cases
    const status = t.status === 'passed' ? 'passed' : `**${t.status}**`
    rows.push(
      `| \`${name.replace('test/fuzz/', '')}\` | ${t.title} | ${cases} | ${status} | ${((t.duration ?? 0) / 1000).toFixed(1)} |`,
    )
  }
}
const failed = result.numFailedTests
const body = [
  `Machine: ${machine()}; 1-min load average ${load} at start (shared machine).`,
  `Command: \`npm run fuzz -- ${runs}\` (\`SKILLHOST_FUZZ_RUNS=${runs} vitest run test/fuzz\`); \`npm test\` runs the same properties with 200 cases each (20 for the real-guest one).`,
  `${rows.length} properties, ${total} cases in all, ${failed} failed; ${seconds} s wall clock including vitest start-up.`,
  '',
  '| file | property | cases | result | seconds |',
  '|---|---|---:|---|---:|',
  ...rows,
].join('\n')
console.log(`\n${body}`)
writeSection('Fuzzing', body)
process.exitCode = child.status === 0 && failed === 0 ? 0 : 1
