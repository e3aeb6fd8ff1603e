// Workspaces in PostgreSQL (issue 36 item 2): store and restore of 1,000
// files / 10 MB through WorkspaceMirror and PostgresWorkspaceStore, cold
// (every blob new) and deduplicated (a second session holding the same
// bytes), and the cost a real script call gains when its session's
// workspace is stored after it (paired rounds: the same call with and
// without the store, order alternating). PostgreSQL is a private server this
// script starts (scripts/postgres-server.mjs) and stops.
// Run after `npx tsc -p tsconfig.build.json`: node bench/workspace-postgres.mjs
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import {
  migratePostgresWorkspaces,
  PostgresWorkspaceStore,
} from '../dist/adapters/postgres/index.js'
import { createSkillManager, FileSystemSkillSource, forgeSkillTools } from '../dist/index.js'
import { WorkspaceMirror } from '../dist/manager/internal.js'
import { createScriptSandbox, SessionWorkspace } from '../dist/tiers/scripts/index.js'
import { startPostgres } from '../scripts/postgres-server.mjs'
import { machine, percentile, writeSection } from './lib.mjs'

const FILES = 1000
const FILE_BYTES = 10 * 1024
const ROUNDS = 3
const CALL_ROUNDS = 30
const loadStart = loadavg()[0]
const server = await startPostgres()
const pool = new pg.Pool({ connectionString: server.createDatabase('bench_ws'), max: 4 })
pool.on('error', () => undefined)
await migratePostgresWorkspaces(pool)
const store = new PostgresWorkspaceStore({ pool })
const base = mkdtempSync(join(tmpdir(), 'skillhost-bench-wspg-'))
let n = 0

/** A private workspace and the manager-side handle the mirror takes. */
async function workspace() {
  const dir = join(base, `ws-${++n}`)
  mkdirSync(dir)
  const ws = await SessionWorkspace.create({ privateDir: async () => dir })
  return { ws, handle: { open: async () => ws } }
}

const timed = async (work) => {
  const t = performance.now()
  await work()
  return performance.now() - t
}
const ms = (x) => x.toFixed(0)

// --- a. 1,000 files / 10 MB: store cold, store deduplicated, restore ---------
const samples = { cold: [], dedup: [], restore: [] }
for (let r = 0; r < ROUNDS; r++) {
  const files = Array.from({ length: FILES }, (_, i) => ({
    path: `d${i % 20}/f${i}.bin`,
    bytes: randomBytes(FILE_BYTES),
  }))
  const sessions = [`bench-${r}-a`, `bench-${r}-b`]
  for (const [k, id] of sessions.entries()) {
    const { ws, handle } = await workspace()
    for (const f of files) await ws.put(f.path, f.bytes)
    const mirror = new WorkspaceMirror({ store, sessionId: id, workspace: handle })
    samples[k === 0 ? 'cold' : 'dedup'].push(await timed(() => mirror.store()))
    await ws.dispose()
  }
  const { ws, handle } = await workspace()
  const mirror = new WorkspaceMirror({ store, sessionId: sessions[0], workspace: handle })
  samples.restore.push(
    await timed(async () => {
      if ((await mirror.restore()) !== FILES) throw new Error('restore wrote too few files')
    }),
  )
  await ws.dispose()
  for (const id of sessions) await store.remove(id)
}

// --- b. a real script call, with and without the store after it --------------
const skills = join(base, 'skills', 'bench-wspg')
mkdirSync(skills, { recursive: true })
writeFileSync(join(skills, 'SKILL.md'), '---\nname: bench-wspg\ndescription: Bench.\n---\nbody\n')
writeFileSync(join(skills, 'touch.sh'), 'mkdir -p out\ndate +%s%N > out/t.txt\n')
writeFileSync(
  join(skills, 'skillhost.yaml'),
  'scripts:\n  - name: touch\n    path: touch.sh\n    description: Rewrites one file.\n    interpreter: sh\n',
)
const sandbox = await createScriptSandbox({ maxTimeoutSeconds: 60, defaultTimeoutSeconds: 60 })
const manager = await createSkillManager({
  sources: [new FileSystemSkillSource({ roots: [join(base, 'skills')] })],
  gate: async () => undefined,
  scripts: sandbox.config,
})
const ctx = manager.createTurnContext()
for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
await manager.load('bench-wspg', ctx)
const ws = await manager.workspace.open()
for (let i = 0; i < 100; i++) await ws.put(`keep/k${i}.txt`, `kept ${i}\n`)
const mirror = new WorkspaceMirror({
  store,
  sessionId: 'bench-calls',
  workspace: manager.workspace,
})
await mirror.store()
const tool = ctx.tools.all().find((t) => t.name.endsWith('touch'))
const call = () => tool.execute({}, ctx)
await call() // warm-up
const plain = []
const stored = []
for (let r = 0; r < CALL_ROUNDS; r++) {
  const order = r % 2 ? ['stored', 'plain'] : ['plain', 'stored']
  for (const kind of order) {
    if (kind === 'plain') plain.push(await timed(call))
    else
      stored.push(
        await timed(async () => {
          await call()
          await mirror.store()
        }),
      )
  }
}
const added = stored.map((s, i) => s - plain[i]).sort((a, b) => a - b)
await manager.dispose()
await sandbox.dispose?.()
await store.remove('bench-calls')
await pool.end()
await server.stop()
rmSync(base, { recursive: true, force: true })

const p50 = (s) => percentile(s, 50)
const table = [
  '| case | p50 ms | min ms | max ms |',
  '|---|---:|---:|---:|',
  ...[
    ['store, cold (1,000 new blobs)', samples.cold],
    ['store, deduplicated (every blob already stored)', samples.dedup],
    ['restore into an empty workspace', samples.restore],
  ].map(
    ([label, s]) => `| ${label} | ${ms(p50(s))} | ${ms(Math.min(...s))} | ${ms(Math.max(...s))} |`,
  ),
].join('\n')
const calls = [
  '| script call (100 files kept, 1 rewritten) | p50 ms |',
  '|---|---:|',
  `| without the store | ${p50(plain).toFixed(1)} |`,
  `| with the store after it | ${p50(stored).toFixed(1)} |`,
  `| added by the store (paired differences, p50) | ${p50(added).toFixed(1)} |`,
  `| ratio with / without (p50s) | ${(p50(stored) / p50(plain)).toFixed(2)}× |`,
].join('\n')
console.log(`${table}\n\n${calls}`)
writeSection(
  'Workspaces in PostgreSQL: store, restore, added cost per call',
  `Machine: ${machine()}; 1-min load average ${loadStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end (shared
machine: other engineers' builds and tests ran at once, so absolute times are high; compare within the table).
Command: \`npm run bench -- workspace-postgres\` (or \`npx tsc -p tsconfig.build.json && node bench/workspace-postgres.mjs\`).
PostgreSQL is a private Debian server on loopback (\`fsync=off\`, like the test server), one \`pg.Pool\` of 4.
${FILES} files of ${FILE_BYTES / 1024} KiB of random bytes (10 MB, in 20 folders), ${ROUNDS} rounds: \`WorkspaceMirror.store\`
for a first session (every blob new), then for a second session holding the same files (no bytes sent: the blobs are
found and locked), then \`restore\` of the first into an empty private workspace (fetch, sha-256 check, write by
descriptor). Script calls: a real bubblewrap call that rewrites one file in a workspace of 100 files, ${CALL_ROUNDS}
paired rounds, alternating which goes first; "with the store" is the call then \`store()\` (a walk, one read, one
commit), as \`serve --postgres\` runs it before the result is sent.

${table}

${calls}`,
)
