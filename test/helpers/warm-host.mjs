// A host process with warm sandboxes, for the sweep of leftovers
// (test/tiers/scripts/sandbox/warm-leftovers.test.ts), on the built dist/.
// Every folder it makes is under TMPDIR (the test's own). Modes:
// - `hold`: one warm call, then prints `{"pid":…,"folders":[…]}` (its warm
//   sandboxes' host folders) and idles until killed; each `call` line on
//   stdin runs one more warm call and prints `call <exit code>`.
// - `once`: one warm call on a new handle (whose pool sweeps first), then
//   dispose; prints `done`.
// - `churn N`: N times a new handle, one warm call, dispose; prints
//   `churned <ok> <failed>`.
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { NOOP_SH, scriptBenchConfig } from '../../bench/lib.mjs'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
} from '../../dist/tiers/scripts/index.js'
import { runSkillScript } from '../../dist/tiers/scripts/internal.js'

const [mode, count] = process.argv.slice(2)
const base = mkdtempSync(join(tmpdir(), 'skillhost-warm-host-'))
chmodSync(base, 0o755)
const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
const translator = createPathTranslator({ hiddenHostPaths: [base] })
const root = await workspace.materialize({ id: 'host', version: '1' }, [NOOP_SH.file])

async function call(handle) {
  const config = scriptBenchConfig({ handle, workspace, translator })
  const r = await runSkillScript(config, { skill: 'host', root, script: NOOP_SH.script, args: {} })
  return r.exitCode
}

const mine = () => readdirSync(tmpdir()).filter((n) => n.includes(`-${process.pid}-`))

if (mode === 'hold') {
  const handle = await createBubblewrapHandle({ warmIdleMs: 600_000 })
  await call(handle)
  console.log(JSON.stringify({ pid: process.pid, folders: mine() }))
  // Held open by stdin: the host idles, its warm sandbox idle with it.
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'call') console.log(`call ${await call(handle)}`)
  }
  await handle.dispose?.()
} else if (mode === 'once') {
  const handle = await createBubblewrapHandle({ warmIdleMs: 600_000 })
  await call(handle)
  await handle.dispose?.()
  console.log('done')
} else if (mode === 'churn') {
  let ok = 0
  let failed = 0
  for (let i = 0; i < Number(count); i++) {
    const handle = await createBubblewrapHandle({ warmIdleMs: 600_000 })
    if ((await call(handle)) === 0) ok++
    else failed++
    await handle.dispose?.()
  }
  console.log(`churned ${ok} ${failed}`)
}
rmSync(base, { recursive: true, force: true })
