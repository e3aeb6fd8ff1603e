import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { postMcp } from '../helpers/mcp-http-requests.js'
import { connectHttp } from '../helpers/serve-clients.js'
import { listeningUrl, spawnServe } from '../helpers/spawn-serve.js'

const state = mkdtempSync(join(tmpdir(), 'skillhost-auth-test-'))
afterAll(() => rmSync(state, { recursive: true, force: true }))

const base = ['--http', '0', '--no-scripts', '--state-dir', state]
const initialize = postMcp

describe('skillhost serve --http authentication (issue 10 item 21, CLI part)', () => {
  it('refuses a non-loopback --host without a token: exit 2 and a message saying what to do', async () => {
    const served = spawnServe([...base, '--host', '0.0.0.0', 'examples/skills'])
    expect(await served.exited).toBe(2)
    expect(served.stderr()).toContain(
      'refusing to serve on non-loopback host 0.0.0.0 without authentication: set SKILLHOST_TOKEN (or --token)',
    )
    expect(served.stderr()).toContain('--insecure-no-auth')
    expect(served.stderr()).not.toContain('listening on')
  })

  it('with SKILLHOST_TOKEN: unauthenticated requests get 401, an authenticated MCP client works', async () => {
    const served = spawnServe([...base, '--host', '0.0.0.0', 'examples/skills'], {
      SKILLHOST_TOKEN: 'env-s3cret',
    })
    const url = await listeningUrl(served)
    try {
      expect(served.stderr()).toContain('auth: bearer token (from SKILLHOST_TOKEN)')
      expect(served.stderr()).not.toContain('env-s3cret')
      const none = await initialize(url)
      expect(none.status).toBe(401)
      expect(none.headers.get('www-authenticate')).toBe('Bearer')
      expect((await initialize(url, 'Bearer wrong')).status).toBe(401)
      const { client } = await connectHttp(url, 'env-s3cret')
      const listed = await client.callTool({ name: 'list_skills', arguments: {} })
      expect(listed.isError).toBeFalsy()
      expect(JSON.stringify(listed)).toContain('commit-messages')
      await client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })

  it('--token works on loopback too, and warns that the flag is visible in ps', async () => {
    const served = spawnServe([...base, '--token', 'flag-s3cret', 'examples/skills'])
    const url = await listeningUrl(served)
    try {
      expect(served.stderr()).toContain(
        'warning: --token is visible to other local users (ps, /proc); prefer SKILLHOST_TOKEN',
      )
      expect((await initialize(url)).status).toBe(401)
      const { client } = await connectHttp(url, 'flag-s3cret')
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('load_skill')
      await client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })

  it('--insecure-no-auth serves a non-loopback host without a token and prints a warning', async () => {
    const served = spawnServe([
      ...base,
      '--host',
      '0.0.0.0',
      '--insecure-no-auth',
      'examples/skills',
    ])
    const url = await listeningUrl(served)
    try {
      expect(served.stderr()).toContain(
        'WARNING: --insecure-no-auth: no authentication on 0.0.0.0; anyone who can reach this port can load skills',
      )
      const { client } = await connectHttp(url)
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_skills')
      await client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })

  it('loopback without a token keeps working, with no warning', async () => {
    const served = spawnServe([...base, 'examples/skills'])
    const url = await listeningUrl(served)
    try {
      expect(served.stderr()).toContain('auth: none (loopback only)')
      expect(served.stderr()).not.toMatch(/warning/i)
      const { client } = await connectHttp(url)
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_skills')
      await client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
  })
})
