// Soak (issue 36 item 8): two real `skillhost serve --http --postgres`
// replicas (the built binary) on loopback over one private PostgreSQL
// (scripts/postgres-server.mjs), driven by 20 concurrent sessions of the
// official MCP SDK client (bench/soak-session.mjs) for `--minutes N`: loads,
// unloads, script calls with binary files in and out (every byte checked by
// digest), sessions moving between the replicas, and replica B killed with
// SIGKILL at half time and restarted. Reports calls served, errors by
// category, p50/p99 latency per call kind, and each replica's RSS at start,
// after warm-up and at the end. Run by hand, not in `npm run bench`'s default
// set: `npm run bench -- soak` (10 minutes) or
// `bash scripts/build-dist.sh && node bench/soak.mjs --minutes 1 --no-write`.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { startPostgres } from '../scripts/postgres-server.mjs'
import { machine, percentile, writeSection } from './lib.mjs'
import { SKILL, SKILL_FILES, SoakSession, Tally } from './soak-session.mjs'

const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    sessions: { type: 'string', default: '20' },
    'think-ms': { type: 'string', default: '500' },
    'no-write': { type: 'boolean', default: false },
  },
})
const MINUTES = Number(opts.minutes)
const SESSIONS = Number(opts.sessions)
const THINK_MS = Number(opts['think-ms'])
if (!(MINUTES > 0 && MINUTES <= 120) || !(SESSIONS >= 1 && SESSIONS <= 100) || !(THINK_MS >= 0))
  throw new Error('--minutes 0..120, --sessions 1..100, --think-ms ≥ 0')
const RUN_MS = MINUTES * 60_000
const WARMUP_MS = Math.min(90_000, Math.max(15_000, RUN_MS * 0.15))
/** Far above what a session can do in the run: the count bound beside the deadline. */
const MAX_ITERATIONS = Math.ceil(RUN_MS / Math.max(THINK_MS, 10)) + 10
const DOWN_MS = 5_000
const TOKEN = 'soak-bench-token'
const root = fileURLToPath(new URL('..', import.meta.url))

const temp = mkdtempSync(join(tmpdir(), 'skillhost-soak-'))
const processes = new Set()
let server
let cleaned = false

/** Stops every replica (its whole process group), the database and the temp folder; once. */
async function cleanup() {
  if (cleaned) return
  cleaned = true
  for (const child of processes) stopGroup(child, 'SIGTERM')
  await Promise.race([
    Promise.all(
      [...processes].map((c) =>
        c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once('exit', r)),
      ),
    ),
    new Promise((r) => setTimeout(r, 10_000)),
  ])
  for (const child of processes) stopGroup(child, 'SIGKILL')
  await server?.stop().catch(() => undefined)
  rmSync(temp, { recursive: true, force: true })
}
function stopGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {}
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    console.error(`soak: ${signal}, cleaning up`)
    void cleanup().finally(() => process.exit(130))
  })

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

const rssOf = (pid) => {
  try {
    return (
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
    )
  } catch {
    return 0
  }
}
/** Processes in `pgid`'s group (the replica and its sandboxes), from /proc. */
function groupMembers(pgid) {
  let n = 0
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) n++
    } catch {}
  }
  return n
}

/** Starts replica `r` (its own process group) and resolves once it listens on loopback. */
function startReplica(r, db, skills) {
  const child = spawn(
    process.execPath,
    [
      // `kill -USR2 <pid>` writes a heap snapshot into the run's temp folder (to find what grows).
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${temp}`,
      'dist/cli/main.js',
      'serve',
      '--http',
      String(r.port),
      '--host',
      '127.0.0.1',
      '--token',
      TOKEN,
      '--postgres',
      db,
      '--state-dir',
      join(temp, `state-${r.name}`),
      skills,
    ],
    {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: temp },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  )
  processes.add(child)
  let err = ''
  child.stderr.on('data', (c) => {
    err = (err + c).slice(-200_000)
  })
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 120_000
    const t = setInterval(() => {
      const m = /listening on (\S+)/.exec(err)
      if (m || child.exitCode !== null || Date.now() > deadline) clearInterval(t)
      if (m) {
        const url = new URL(m[1])
        if (!['127.0.0.1', 'localhost'].includes(url.hostname))
          throw new Error(`not loopback: ${url}`)
        url.hostname = '127.0.0.1'
        Object.assign(r, { child, url: url.href, up: true, stderr: () => err, started: Date.now() })
        r.rss = { start: rssOf(child.pid) }
        resolve(r)
      } else if (child.exitCode !== null || Date.now() > deadline)
        reject(new Error(`replica ${r.name} did not start:\n${err.slice(-2000)}`))
    }, 50)
  })
}

const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`
const fmt = (n) => n.toLocaleString('en-US')

async function main() {
  const built = spawnSync('bash', ['scripts/build-dist.sh'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) throw new Error('build failed')
  const loads = [loadavg()[0]]
  server = await startPostgres()
  const db = server.createDatabase('soak')
  const skills = join(temp, 'skills')
  for (const [path, text] of Object.entries(SKILL_FILES)) {
    mkdirSync(dirname(join(skills, SKILL, path)), { recursive: true })
    writeFileSync(join(skills, SKILL, path), text)
  }
  const replicas = []
  for (const name of ['A', 'B'])
    replicas.push({ name, port: await freePort(), epoch: 0, up: false })
  await Promise.all(replicas.map((r) => startReplica(r, db, skills)))
  const [a, b] = replicas
  const tally = new Tally()
  const t0 = Date.now()
  const deadline = t0 + RUN_MS
  const events = []
  const log = (line) => {
    const at = `${((Date.now() - t0) / 1000).toFixed(0)} s`
    events.push(`${at}: ${line}`)
    console.log(`soak ${at}: ${line}`)
  }
  log(
    `replicas A ${a.url} (pid ${a.child.pid}), B ${b.url} (pid ${b.child.pid}); ${SESSIONS} sessions for ${MINUTES} min`,
  )

  // The schedule: RSS after warm-up, B killed at half time and restarted DOWN_MS later.
  const timers = []
  const at = (ms, fn) => timers.push(setTimeout(fn, ms))
  at(WARMUP_MS, () => {
    for (const r of replicas) r.rss.warm = rssOf(r.child.pid)
    log(`warm-up over: RSS A ${mb(a.rss.warm)}, B ${mb(b.rss.warm)}`)
  })
  let restarted
  let orphans
  at(RUN_MS / 2, () => {
    b.rss.beforeKill = rssOf(b.child.pid)
    b.up = false
    b.epoch++
    const pgid = b.child.pid
    b.child.kill('SIGKILL')
    log(`replica B killed with SIGKILL (RSS then ${mb(b.rss.beforeKill)})`)
    at(DOWN_MS, () => {
      orphans = Math.max(0, groupMembers(pgid))
      b.first = { rss: b.rss, pid: pgid }
      restarted = startReplica(b, db, skills).then(
        () => {
          log(
            `replica B restarted (pid ${b.child.pid}); processes left in the killed one's group: ${orphans}`,
          )
          at(WARMUP_MS, () => {
            b.rss.warm = rssOf(b.child.pid)
          })
        },
        (e) => log(`replica B failed to restart: ${e.message}`),
      )
    })
  })
  // Each minute: each replica's RSS and the sessions it holds (its /metrics), and the load.
  const minutes = []
  const sample = async () => {
    const row = { t: Date.now() - t0, load: loadavg()[0] }
    for (const r of replicas) {
      row[r.name] = r.up ? rssOf(r.child.pid) : 0
      row[`${r.name}held`] = r.up ? await sessionsHeld(r) : 'down'
    }
    minutes.push(row)
    log(
      `RSS A ${mb(row.A)} (${row.Aheld} sessions held), B ${row.B ? mb(row.B) : 'down'} (${row.Bheld}), load ${row.load.toFixed(1)}`,
    )
  }
  const sampler = setInterval(() => {
    loads.push(loadavg()[0])
    void sample()
  }, 60_000)
  void sample()

  const workers = Array.from(
    { length: SESSIONS },
    (_, id) =>
      new SoakSession({
        id,
        replicas,
        token: TOKEN,
        tally,
        deadline,
        maxIterations: MAX_ITERATIONS,
        thinkMs: THINK_MS,
      }),
  )
  const iterations = await Promise.all(workers.map((w) => w.run()))
  clearInterval(sampler)
  for (const t of timers) clearTimeout(t)
  await restarted
  for (const r of replicas) r.rss.end = rssOf(r.child.pid)
  await sample()
  loads.push(loadavg()[0])
  const pool = new pg.Pool({ connectionString: db, max: 1 })
  // A table this build does not have (workspaces before they followed the session) is 'n/a'.
  const count = (table) =>
    pool.query(`SELECT count(*)::int AS n FROM skillhost.${table}`).then(
      (r) => r.rows[0].n,
      () => 'n/a',
    )
  const left = {
    sessions: await count('sessions'),
    spool: await count('spool_items'),
    workspaces: await count('workspace_files'),
    blobs: await count('workspace_blobs'),
    // Whose spool items outlived their session's DELETE, if any: how many sessions, and untagged ones.
    spoolOwners: await pool
      .query(
        `SELECT count(DISTINCT session)::int AS s, (count(*) FILTER (WHERE session = ''))::int AS u FROM skillhost.spool_items`,
      )
      .then(
        (r) => `${r.rows[0].s} session tags, ${r.rows[0].u} untagged`,
        () => 'n/a',
      ),
  }
  await pool.end()
  const elapsed = Date.now() - t0
  report({ tally, replicas, iterations, elapsed, loads, left, events, orphans, minutes })
}

/** The sessions replica `r` holds now (`skillhost_sessions_open` on its /metrics), or '?'. */
async function sessionsHeld(r) {
  try {
    const res = await fetch(new URL('/metrics', r.url), {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    })
    const m = /^skillhost_sessions_open(?:\{[^}]*\})? (\d+)/m.exec(await res.text())
    return m ? Number(m[1]) : '?'
  } catch {
    return '?'
  }
}

function report({ tally, replicas, iterations, elapsed, loads, left, events, orphans, minutes }) {
  const [a, b] = replicas
  const kinds = [...tally.latency.keys()].sort()
  const rows = kinds.map((k) => {
    const s = tally.latency.get(k)
    return `| ${k} | ${fmt(s.length)} | ${percentile(s, 50).toFixed(0)} | ${percentile(s, 99).toFixed(0)} |`
  })
  const e = tally.errors
  const memory = [
    `| A | ${mb(a.rss.start)} | ${mb(a.rss.warm ?? 0)} | ${mb(a.rss.end)} |`,
    `| B (until the kill) | ${mb(b.first?.rss.start ?? 0)} | ${mb(b.first?.rss.warm ?? 0)} | ${mb(b.first?.rss.beforeKill ?? 0)} (at the kill) |`,
    `| B (restarted) | ${mb(b.rss.start)} | ${b.rss.warm ? mb(b.rss.warm) : 'n/a (ran < warm-up)'} | ${mb(b.rss.end)} |`,
  ]
  const body = `Machine: ${machine()}; 1-min load average ${loads[0].toFixed(1)} at start, ${Math.max(...loads).toFixed(1)} at most, ${loads.at(-1).toFixed(1)} at end (shared machine: other engineers' runs).
Command: \`npm run bench -- soak\` (\`node bench/soak.mjs --minutes ${MINUTES} --sessions ${SESSIONS} --think-ms ${THINK_MS}\`). Two built \`skillhost serve --http --postgres\` replicas on loopback, one private PostgreSQL (fsync off); ${SESSIONS} sessions of the official MCP SDK 1.x client (Streamable HTTP), each a loop bounded by the deadline and ${fmt(MAX_ITERATIONS)} iterations, ${THINK_MS} ms think time between calls. A task: \`load_skill\` when not loaded, \`workspace_write\` of a binary input (BOM, NUL, 0xFF, CRLF first; 0 B to 600 KB), the skill's python script (\`run_soak_bin_script\`, bubblewrap) writes a binary output, the output read back through the result's resource link (\`resources/read\`) or \`workspace_read\`, every byte checked by SHA-256. Every 5th task an unload, every 7th a move to the other replica (a new client with the same session id; then every file the session made is read back), every 23rd the session ends (DELETE) and a new one opens. Replica B is killed with SIGKILL at half time and restarted ${DOWN_MS / 1000} s later; its sessions move to A.

| | measured |
|---|---|
| run | ${(elapsed / 60_000).toFixed(1)} min, ${fmt(iterations.reduce((x, y) => x + y, 0))} session iterations, ${fmt(tally.sessions)} sessions opened |
| calls served | ${fmt(tally.served)} (${(tally.served / (elapsed / 1000)).toFixed(1)}/s) |
| output and input reads checked byte for byte | ${fmt(tally.reads)} (${mb(tally.bytesVerified)}) |
| session moves between replicas | ${fmt(tally.moves)} (restored-session notices seen: ${fmt(tally.restoredNotices)}) |
| errors: calls in flight on the killed replica | ${fmt(e.inflight)} |
| errors: files of moved sessions absent on the new replica | ${fmt(e.fileLoss)} of ${fmt(tally.filesChecked)} checked (${fmt(tally.lostOnHolder)} on a replica process that had served the session before, ${fmt(e.fileLoss - tally.lostOnHolder)} on one restoring it for the first time) |
| errors: everything else (goal 0) | ${fmt(e.other)} |
| processes left in the killed replica's group | ${orphans ?? 'n/a'} |
| rows left after every session ended | ${left.sessions} sessions, ${left.spool} spool items (${left.spoolOwners}), ${left.workspaces} workspace files, ${left.blobs} workspace blobs (sessions the soak could not end with a DELETE: ${tally.abandoned}) |

| call kind | calls | p50 ms | p99 ms |
|---|---:|---:|---:|
${rows.join('\n')}

| replica RSS (VmRSS) | start | after warm-up (${(WARMUP_MS / 1000).toFixed(0)} s) | end |
|---|---:|---:|---:|
${memory.join('\n')}

| minute | RSS A | sessions held on A | RSS B | sessions held on B | load |
|---:|---:|---:|---:|---:|---:|
${minutes
  .map(
    (m) =>
      `| ${(m.t / 60_000).toFixed(1)} | ${mb(m.A)} | ${m.Aheld} | ${m.B ? mb(m.B) : 'down'} | ${m.Bheld} | ${m.load.toFixed(1)} |`,
  )
  .join('\n')}`
  console.log(body)
  for (const [k, list] of Object.entries(tally.samples))
    for (const s of list) console.log(`sample ${k}: ${s}`)
  console.log(events.join('\n'))
  if (!opts['no-write']) writeSection('Soak: two replicas', body)
}

try {
  await main()
} finally {
  await cleanup()
}
