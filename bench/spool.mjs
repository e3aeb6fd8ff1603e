// Spool benchmark (issue 13): put and get of 1 KiB, 1 MiB and 16 MiB items,
// PostgresSpoolStore against FileSpoolStore, measured in the same run with
// the rounds interleaved (file put, pg put, file get, pg get, ...) so machine
// noise hits both alike; plus a full streamed read (`open`) of the largest.
// PostgreSQL is a private server this script starts from Debian's binaries
// (scripts/postgres-server.mjs, the same starter the tests use) and stops.
// Run after `npx tsc -p tsconfig.build.json`: node bench/spool.mjs
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { migratePostgresSpool, PostgresSpoolStore } from '../dist/adapters/postgres/index.js'
import { FileSpoolStore } from '../dist/common/index.js'
import { startPostgres } from '../scripts/postgres-server.mjs'
import { machine, percentile, writeSection } from './lib.mjs'

const KIB = 1024
const MIB = KIB * KIB
const CASES = [
  { label: '1 KiB', bytes: KIB, rounds: 600 },
  { label: '1 MiB', bytes: MIB, rounds: 60 },
  { label: '16 MiB', bytes: 16 * MIB, rounds: 10 },
]
const loadStart = loadavg()[0]
const server = await startPostgres()
const pool = new pg.Pool({ connectionString: server.createDatabase('bench'), max: 4 })
pool.on('error', () => undefined)
await migratePostgresSpool(pool)
const dir = mkdtempSync(join(tmpdir(), 'skillhost-bench-spool-'))
const stores = {
  file: new FileSpoolStore({ directory: join(dir, 'spool') }),
  pg: new PostgresSpoolStore({ pool, session: 'bench' }),
}

const timed = async (samples, work) => {
  const t = performance.now()
  const out = await work()
  samples.push(performance.now() - t)
  return out
}
const sum = (s) => s.reduce((a, b) => a + b, 0)
const drain = async (stream) => {
  let n = 0
  for await (const chunk of stream) n += chunk.byteLength
  return n
}

const rows = []
for (const c of CASES) {
  const content = new Uint8Array(c.bytes).map((_, i) => i % 251)
  const s = {
    file: { put: [], get: [], open: [] },
    pg: { put: [], get: [], open: [] },
  }
  // Warm-up: connections, the page cache, JIT.
  for (const store of Object.values(stores)) await store.get((await store.put(content)).id)
  for (let r = 0; r < c.rounds; r++) {
    const order = r % 2 ? ['pg', 'file'] : ['file', 'pg']
    const ids = {}
    for (const name of order)
      ids[name] = (await timed(s[name].put, () => stores[name].put(content))).id
    for (const name of order) {
      const got = await timed(s[name].get, () => stores[name].get(ids[name]))
      if (got.byteLength !== c.bytes) throw new Error(`${name} read ${got.byteLength} bytes`)
    }
    if (c.bytes >= MIB)
      for (const name of order) {
        const n = await timed(s[name].open, async () => drain(await stores[name].open(ids[name])))
        if (n !== c.bytes) throw new Error(`${name} streamed ${n} bytes`)
      }
  }
  await stores.pg.prune({ session: 'bench' })
  await stores.file.destroy()
  for (const op of ['put', 'get', 'open']) {
    if (s.file[op].length === 0) continue
    const p50 = { file: percentile(s.file[op], 50), pg: percentile(s.pg[op], 50) }
    const rate = (name) =>
      c.bytes >= MIB
        ? `${((c.bytes * s[name][op].length) / MIB / (sum(s[name][op]) / 1000)).toFixed(0)} MiB/s`
        : `${(s[name][op].length / (sum(s[name][op]) / 1000)).toFixed(0)} ops/s`
    rows.push(
      `| ${op === 'open' ? 'streamed read (`open`)' : op} | ${c.label} | ${p50.file.toFixed(2)} | ${p50.pg.toFixed(2)} | ${rate('file')} | ${rate('pg')} | ${(p50.pg / p50.file).toFixed(1)}× |`,
    )
  }
}
await pool.end()
await server.stop()
rmSync(dir, { recursive: true, force: true })

const table = [
  '| operation | item | file p50 ms | postgres p50 ms | file throughput | postgres throughput | postgres/file p50 |',
  '|---|---|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n')
console.log(table)
writeSection(
  'Spool: PostgresSpoolStore vs FileSpoolStore',
  `Machine: ${machine()}; 1-min load average ${loadStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end (shared machine).
Command: \`npm run bench -- spool\` (or \`npx tsc -p tsconfig.build.json && node bench/spool.mjs\`). PostgreSQL is a private
Debian server the bench starts on loopback (TCP, \`fsync=off\` like the test server; the file store does not fsync either),
one \`pg.Pool\` of 4; the file store writes to the same disk. One item per put, read back by id; rounds alternate which store
goes first. Content: a repeating 251-byte pattern (compressible, so PostgreSQL's pglz TOAST compression runs on it). Rounds: ${CASES.map((c) => `${c.label} × ${c.rounds}`).join(', ')}. Throughput is sequential (one call at a time).

${table}`,
)
