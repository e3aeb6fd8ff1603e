// Shared-session benchmark: two real `skillhost serve --http --postgres`
// replicas on one throwaway PostgreSQL (scripts/postgres-server.mjs).
// 1. Rehydration: sessions opened on A with two skills loaded; the first
//    request of each on B (restore: the initialize replayed, both skills
//    prepared again at their versions) against a warm request there (p50).
// 2. 1,000 sessions across both replicas: open + one load each, 8 at a time;
//    wall time, RSS per replica, rows in the database.
// Run after `npx tsc -p tsconfig.build.json`: node bench/sessions.mjs
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startPostgres } from '../scripts/postgres-server.mjs'
import { machine, percentile, writeSection } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const TOKEN = 'bench-token'
const REHYDRATIONS = 100
const SESSIONS = 1_000
const PARALLEL = 8

const loadStart = loadavg()[0]
const server = await startPostgres()
const db = server.createDatabase('bench_sessions')
const state = mkdtempSync(join(tmpdir(), 'skillhost-bench-sessions-'))
const replicas = []

function serve(i) {
  const child = spawn(
    process.execPath,
    [
      'dist/cli/main.js',
      'serve',
      '--http',
      '0',
      '--token',
      TOKEN,
      '--postgres',
      db,
      '--no-scripts',
      '--state-dir',
      join(state, String(i)),
      'examples/skills',
    ],
    {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: state },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let err = ''
  child.stderr.on('data', (c) => {
    err += c
    if (err.length > 1_000_000) err = err.slice(-100_000)
  })
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = /listening on (\S+)/.exec(err)
      if (m) {
        clearInterval(t)
        resolve({ child, url: m[1].replace('localhost', '127.0.0.1') })
      } else if (child.exitCode !== null) {
        clearInterval(t)
        reject(new Error(err))
      }
    }, 20)
  })
}

const headers = (session) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${TOKEN}`,
  ...(session ? { 'mcp-session-id': session } : {}),
})
let rpcId = 0
async function rpc(url, session, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, ...(params ? { params } : {}) }),
  })
  const text = await res.text()
  if (!res.ok || text.includes('"error"'))
    throw new Error(`${method}: ${res.status} ${text.slice(0, 300)}`)
  return { res, text }
}
async function openSession(url) {
  const { res } = await rpc(url, undefined, 'initialize', {
    protocolVersion: '2025-03-26',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  })
  const session = res.headers.get('mcp-session-id')
  await fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  return session
}
const load = (url, session, skill) =>
  rpc(url, session, 'tools/call', { name: 'load_skill', arguments: { skill } })
const rssOf = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

try {
  replicas.push(await serve(0), await serve(1))
  const [a, b] = replicas

  // 1. Rehydration on B of sessions made on A.
  const made = []
  for (let i = 0; i < REHYDRATIONS; i++) {
    const session = await openSession(a.url)
    await load(a.url, session, 'json-tools')
    await load(a.url, session, 'unit-convert')
    made.push(session)
  }
  const first = []
  const warm = []
  for (const session of made) {
    let t = performance.now()
    await rpc(b.url, session, 'tools/list')
    first.push(performance.now() - t)
    t = performance.now()
    await rpc(b.url, session, 'tools/list')
    warm.push(performance.now() - t)
  }
  const p50First = percentile(first, 50)
  const p50Warm = percentile(warm, 50)

  // 2. 1,000 sessions across both replicas: open + one load each.
  const pool = new pg.Pool({ connectionString: db, max: 2 })
  const before = [rssOf(a.child.pid), rssOf(b.child.pid)]
  const t0 = performance.now()
  const opens = []
  const loads = []
  let next = 0
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < SESSIONS) {
        const i = next++
        const url = i % 2 === 0 ? a.url : b.url
        let t = performance.now()
        const session = await openSession(url)
        opens.push(performance.now() - t)
        t = performance.now()
        await load(url, session, 'commit-messages')
        loads.push(performance.now() - t)
      }
    }),
  )
  const wall = performance.now() - t0
  const after = [rssOf(a.child.pid), rssOf(b.child.pid)]
  const rows = (await pool.query('SELECT count(*)::int AS n FROM skillhost.sessions')).rows[0].n
  const spoolRows = (await pool.query('SELECT count(*)::int AS n FROM skillhost.spool_items'))
    .rows[0].n
  const bytes = (
    await pool.query('SELECT pg_total_relation_size($1)::float8 AS n', ['skillhost.sessions'])
  ).rows[0].n
  await pool.end()

  const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`
  const lines = [
    `| what | measured |`,
    `|---|---|`,
    `| rehydration: first request on replica B of a session made on A (2 skills loaded), p50 | ${p50First.toFixed(1)} ms (p90 ${percentile(first, 90).toFixed(1)} ms) |`,
    `| the same session's next request on B (warm), p50 | ${p50Warm.toFixed(1)} ms |`,
    `| ${SESSIONS.toLocaleString('en-US')} sessions across 2 replicas, open + one load each, ${PARALLEL} at a time | ${(wall / 1000).toFixed(1)} s (${(SESSIONS / (wall / 1000)).toFixed(0)} sessions/s) |`,
    `| of which, per session: open (initialize + initialized, row stored) p50, one load (under the session lock, state written) p50 | ${percentile(opens, 50).toFixed(1)} ms, ${percentile(loads, 50).toFixed(1)} ms |`,
    `| RSS per replica after them (A, B) | ${mb(after[0])}, ${mb(after[1])} (growth ${mb(after[0] - before[0])}, ${mb(after[1] - before[1])}) |`,
    `| database rows | ${rows.toLocaleString('en-US')} session rows (${mb(bytes)} with indexes), ${spoolRows.toLocaleString('en-US')} spool items |`,
  ]
  console.log(lines.join('\n'))
  writeSection(
    'Shared sessions (serve --http --postgres, 2 replicas)',
    `${lines.join('\n')}\n\nReplicas: two \`skillhost serve --http --postgres\` processes with \`--no-scripts\` over \`examples/skills\`, one throwaway PostgreSQL (fsync off) on the same machine; requests are raw JSON-RPC over fetch. Rehydration includes reading the session row, replaying its initialize to a fresh transport and preparing both skills again at their versions under the session lock. Sessions stay open (no idle timeout reached), so RSS holds ${SESSIONS / 2 + REHYDRATIONS} managers per replica or so. Machine: ${machine()}; 1-min load average ${loadStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end (shared machine).`,
  )
} finally {
  for (const r of replicas) r.child.kill('SIGTERM')
  await Promise.all(
    replicas.map(
      (r) => new Promise((res) => (r.child.exitCode !== null ? res() : r.child.once('exit', res))),
    ),
  )
  await server.stop()
  rmSync(state, { recursive: true, force: true })
}
