// Tier 2 benchmark: isolated tools in QuickJS worker guests.
// Run after `npm run build`: `node bench/isolated.mjs`. Prints a table.
import { availableParallelism, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import vm from 'node:vm'
import {
  createInProcessGuest,
  createQuickJsGuest,
  runIsolatedTool,
} from '../dist/tiers/isolated/index.js'
import { machine, writeSection } from './lib.mjs'

const SOURCE =
  'async (args) => ({ sum: args.values.reduce((a, b) => a + b, 0), n: args.values.length })'
const ARGS = { values: [1, 2, 3, 4, 5, 6, 7, 8] }
const tool = (source) => ({ name: 'bench', description: 'bench', source })
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function quantile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
}

async function timeCalls(config, n, gapMs) {
  const samples = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await runIsolatedTool(config, tool(SOURCE), ARGS)
    samples.push(performance.now() - t)
    if (gapMs) await sleep(gapMs)
  }
  return samples
}

function configFor(pool, seconds = 5) {
  return {
    resolveGuest: pool.resolveGuest,
    maxTimeoutSeconds: seconds,
    defaultTimeoutSeconds: seconds,
  }
}

const loadAtStart = loadavg()[0]
// Filled by the fresh-guest block, for the account of where the time goes.
const split = {}
const rows = []
const row = (what, value, target = '') => rows.push({ what, value, target })

// Worker cold start: a new pool until its worker is ready (binary compiled once per process).
{
  const samples = []
  for (let i = 0; i < 6; i++) {
    const pool = createQuickJsGuest({ poolSize: 1 })
    const t = performance.now()
    await pool.warm()
    samples.push(performance.now() - t)
    await pool.dispose()
  }
  row('worker cold start, first (incl. wasm compile)', `${samples[0].toFixed(1)} ms`)
  row(
    'worker cold start p50 (compiled module reused)',
    `${quantile(samples.slice(1), 0.5).toFixed(1)} ms`,
  )
}

// Fresh guest per call on a warm pool of one worker.
{
  const pool = createQuickJsGuest({ poolSize: 1 })
  await pool.warm()
  const config = configFor(pool)
  await timeCalls(config, 50, 0)
  const spaced = await timeCalls(config, 300, 5)
  const backToBack = await timeCalls(config, 300, 0)
  row(
    'fresh-guest call p50, warm pool (5 ms between calls)',
    `${quantile(spaced, 0.5).toFixed(2)} ms`,
    '≤ 3 ms',
  )
  row(
    'fresh-guest call p95, warm pool (5 ms between calls)',
    `${quantile(spaced, 0.95).toFixed(2)} ms`,
  )
  row('fresh-guest call p50, back to back', `${quantile(backToBack, 0.5).toFixed(2)} ms`)
  row('fresh-guest call p95, back to back', `${quantile(backToBack, 0.95).toFixed(2)} ms`)

  // The same QuickJS evaluation on the calling thread: what the worker hop costs.
  const inProcess = { ...config, resolveGuest: createInProcessGuest() }
  await timeCalls(inProcess, 50, 0)
  const local = await timeCalls(inProcess, 300, 5)
  row('same evaluation in-process p50 (no worker hop)', `${quantile(local, 0.5).toFixed(2)} ms`)

  // The same function in node:vm, fresh context per call (contrast only; not isolation).
  const vmSamples = []
  const code = `(${SOURCE})(args).then((r) => JSON.stringify(r))`
  for (let i = 0; i < 350; i++) {
    const t = performance.now()
    await vm.runInNewContext(code, { args: structuredClone(ARGS) })
    if (i >= 50) vmSamples.push(performance.now() - t)
  }
  const vmP50 = quantile(vmSamples, 0.5)
  row('node:vm fresh context p50 (contrast)', `${vmP50.toFixed(2)} ms`)
  const guestP50 = quantile(spaced, 0.5)
  const localP50 = quantile(local, 0.5)
  row(
    'QuickJS guest / node:vm (p50, spaced)',
    `${(guestP50 / vmP50).toFixed(2)}×`,
    '≤ 2× (issue 25)',
  )
  row('in-process QuickJS / node:vm (p50)', `${(localP50 / vmP50).toFixed(2)}×`)
  Object.assign(split, { guestP50, localP50, vmP50 })

  // Kill latency beyond a 1 s timeout: soft (interrupt handler) and hard (worker terminate).
  const killConfig = configFor(pool, 1)
  const kill = async (source) => {
    const samples = []
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      await runIsolatedTool(killConfig, tool(source), {}).catch(() => {})
      samples.push(performance.now() - t - 1000)
      await sleep(50)
    }
    return samples
  }
  const soft = await kill('async () => { while (true) {} }')
  // One builtin that never reaches an interrupt check: QuickJS's linear JSON cycle check.
  const hard = await kill(
    'async () => { let o = {}; for (let i = 0; i < 3e4; i++) o = { o }; return JSON.stringify(o) }',
  )
  row('kill beyond timeout, busy loop (soft) max', `${Math.max(...soft).toFixed(0)} ms`, '≤ 300 ms')
  row(
    'kill beyond timeout, long builtin (hard) max',
    `${Math.max(...hard).toFixed(0)} ms`,
    '≤ 300 ms',
  )
  row('respawns after the hard kills', String(pool.stats().respawns))
  await pool.dispose()
}

// Throughput with the pool sized to the cores.
{
  const cores = availableParallelism()
  const pool = createQuickJsGuest({ poolSize: cores })
  await pool.warm()
  const config = configFor(pool)
  const total = 2000
  let next = 0
  // One owner per caller: the pool caps what a single owner holds at half its workers.
  const worker = async (_, owner) => {
    while (next++ < total) await runIsolatedTool(config, tool(SOURCE), ARGS, { owner })
  }
  const t = performance.now()
  await Promise.all(Array.from({ length: cores * 2 }, worker))
  const seconds = (performance.now() - t) / 1000
  row(
    `throughput, pool of ${cores}, ${cores * 2} in flight`,
    `${Math.round(total / seconds)} calls/s`,
  )
  row('host RSS after the run', `${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`)
  await pool.dispose()
}

const width = Math.max(...rows.map((r) => r.what.length))
console.log(`${'measure'.padEnd(width)} | value        | target`)
console.log(`${'-'.repeat(width)}-|--------------|-------`)
for (const r of rows) console.log(`${r.what.padEnd(width)} | ${r.value.padEnd(12)} | ${r.target}`)

const table = rows.map((r) => `| ${r.what} | ${r.value} | ${r.target} |`).join('\n')
writeSection(
  'Isolated tools (tier 2)',
  `Machine: ${machine()}; 1-min load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end (shared machine: latencies are inflated and noisy).
Command: \`npm run bench -- isolated\`. Tool: \`async (args) => ({ sum, n })\` over 8 numbers; validated args;
a fresh QuickJS instance, runtime and context in a fresh 32 MiB-capped WebAssembly memory per call (the memory
starts at 6 MiB and grows on demand up to the cap); each worker prepares the next instance, runtime and context
while idle, so a call only evaluates. Kill latencies are beyond a 1 s timeout, max of 5: "soft" is QuickJS's interrupt
handler, "hard" is \`worker.terminate()\` after the 100 ms grace (a builtin that never reaches an interrupt check).

| measure | value | target |
|---|---:|---|
${table}

**Where the time over node:vm goes, and why it stays** (issue 25 asks for ≤ 2× or this account). Of the
${split.guestP50.toFixed(2)} ms p50 call, ${(split.guestP50 - split.localP50).toFixed(2)} ms is the hop to the worker and back (structured
clone of the arguments and the result, two message events): the price of a guest that can be killed
with \`worker.terminate()\` when a builtin never reaches an interrupt check (the "hard" kill above).
The remaining ${split.localP50.toFixed(2)} ms is the evaluation itself in QuickJS: ${(split.localP50 / split.vmP50).toFixed(2)}× node:vm's ${split.vmP50.toFixed(2)} ms,
because QuickJS interprets bytecode where V8 compiles, and each call gets a fresh runtime and context in
a fresh capped WebAssembly memory so that nothing one call leaves (globals, prototypes, a filled heap)
reaches the next. node:vm is the contrast, not an alternative: it shares the host's heap (no memory
cap), cannot interrupt a builtin, and Node's own documentation says it is not a security mechanism.
Reaching 2× would mean dropping the worker (no hard kill) or reusing contexts across calls (state
leaking between calls); neither is worth a fraction of a millisecond on a call the model waits
seconds for.
`,
)
