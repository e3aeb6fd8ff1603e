import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectHttp } from '../helpers/serve-clients.js'
import { listeningUrl, spawnServe, waitFor } from '../helpers/spawn-serve.js'

// Issue 40.13: `serve --http` logged "session … opened" twice for one
// initialize. The built binary, the SDK's real client: one line per event.
const state = mkdtempSync(join(tmpdir(), 'skillhost-session-log-'))
afterAll(() => rmSync(state, { recursive: true, force: true }))

describe('serve --http logs each session once', () => {
  it('one initialize is one "opened" line, one DELETE one "closed" line', async () => {
    const served = spawnServe([
      '--http',
      '0',
      '--no-scripts',
      '--state-dir',
      state,
      'examples/skills',
    ])
    try {
      const url = await listeningUrl(served)
      const { client, transport } = await connectHttp(url)
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_skills')
      const id = transport.sessionId as string
      expect(id).toMatch(/\S/)
      await transport.terminateSession()
      await waitFor(() => served.stderr().includes(`session ${id} closed`))
      await client.close()
      const lines = served.stderr().split('\n')
      expect(lines.filter((l) => l.includes(`session ${id} opened`))).toHaveLength(1)
      expect(lines.filter((l) => l.includes(`session ${id} closed`))).toHaveLength(1)
      expect(lines.filter((l) => / opened$/.test(l))).toHaveLength(1)
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })
})
