// A host with nothing on its event loop but its warm calls: three script calls
// (`runSkillScript`, as a session makes them) back to back on one warm handle,
// then dispose. Run as its own process by
// test/tiers/scripts/sandbox/warm-holds-host.test.ts; prints one line per call
// and `done`. Before the fix the process exited (status 13, an unsettled
// top-level await) while the second call waited for its sandbox to be ready.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createBubblewrapHandle,
  createDirectoryWorkspace,
  createPathTranslator,
} from '../../dist/tiers/scripts/index.js'
import { runSkillScript } from '../../dist/tiers/scripts/internal.js'

const SYSTEM = ['/usr', '/bin', '/lib', '/lib64']
const base = mkdtempSync(join(tmpdir(), 'skillhost-warm-host-'))
chmodSync(base, 0o755)
const workspace = await createDirectoryWorkspace({ baseDir: join(base, 'ws') })
const handle = await createBubblewrapHandle({ warmIdleMs: 60_000 })
const config = {
  handle,
  workspace,
  policy: {
    filesystem: {
      allowRead: [workspace.skillsDir, ...SYSTEM],
      denyRead: [],
      allowWrite: [workspace.scratchDir],
      denyWrite: [],
    },
    network: { allowedDomains: [] },
  },
  translator: createPathTranslator({ hiddenHostPaths: [base] }),
  interpreters: { sh: ['/bin/sh'] },
  interpreterReadPaths: SYSTEM,
  maxTimeoutSeconds: 30,
  defaultTimeoutSeconds: 20,
  maxOutputBytes: 65_536,
  hostEnvIsolated: true,
}
const root = await workspace.materialize({ id: 'host', version: '1' }, [
  { path: 'noop.sh', read: async () => new TextEncoder().encode(':\n') },
])
const noop = { name: 'noop', path: 'noop.sh', description: 'noop', interpreter: 'sh' }
for (let i = 0; i < 3; i++) {
  const r = await runSkillScript(config, { skill: 'host', root, script: noop, args: {} })
  console.log(`call ${i} exit ${r.exitCode}`)
}
await handle.dispose?.()
rmSync(base, { recursive: true, force: true })
console.log('done')
