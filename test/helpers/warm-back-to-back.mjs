// A host with nothing on its event loop but its warm calls: three script calls
// (`runSkillScript`, as a session makes them) back to back on one warm handle,
// then dispose. Run as its own process by
// test/tiers/scripts/sandbox/warm-holds-host.test.ts; prints one line per call
// and `done`. Before the fix the process exited (status 13, an unsettled
// top-level await) while the second call waited for its sandbox to be ready.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NOOP_SH, scriptBenchConfig } from '../../bench/lib.mjs'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
} from '../../dist/tiers/scripts/index.js'
import { runSkillScript } from '../../dist/tiers/scripts/internal.js'

const base = mkdtempSync(join(tmpdir(), 'skillhost-warm-host-'))
chmodSync(base, 0o755)
const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
const handle = await createBubblewrapHandle({ warmIdleMs: 60_000 })
const translator = createPathTranslator({ hiddenHostPaths: [base] })
const config = scriptBenchConfig({ handle, workspace, translator })
const root = await workspace.materialize({ id: 'host', version: '1' }, [NOOP_SH.file])
for (let i = 0; i < 3; i++) {
  const r = await runSkillScript(config, { skill: 'host', root, script: NOOP_SH.script, args: {} })
  console.log(`call ${i} exit ${r.exitCode}`)
}
await handle.dispose?.()
rmSync(base, { recursive: true, force: true })
console.log('done')
