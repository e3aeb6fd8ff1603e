import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// A warm call keeps its host alive until it is answered, even in a process
// with nothing else on its event loop (a script, a CLI): an idle warm sandbox
// holds nothing, so the pool must hold it again before waiting for it to be
// ready for the next call. Vitest's own loop hides this in-process, so the
// calls run in a child process of their own (test/helpers/warm-back-to-back.mjs,
// on the built dist/ the global setup makes).
describe.skipIf(process.platform !== 'linux')('a warm call holds its host', () => {
  it('three back-to-back warm script calls in a bare process all finish, then dispose ends it', () => {
    const helper = fileURLToPath(new URL('../../../helpers/warm-back-to-back.mjs', import.meta.url))
    const run = spawnSync(process.execPath, [helper], { encoding: 'utf8', timeout: 120_000 })
    expect(run.stderr).toBe('')
    expect(run.stdout).toBe('call 0 exit 0\ncall 1 exit 0\ncall 2 exit 0\ndone\n')
    expect(run.status).toBe(0)
  }, 150_000)
})
