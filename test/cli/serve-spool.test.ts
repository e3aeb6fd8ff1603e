import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { createServeRuntime, type ServeRuntimeOptions } from '../../src/cli/serve/serve-runtime.js'
import { connectHttp } from '../helpers/serve-clients.js'
import { listeningUrl, ROOT, spawnServe, waitFor } from '../helpers/spawn-serve.js'

const DAY = 24 * 60 * 60 * 1000
const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skillhost-spool-test-'))
  made.push(dir)
  return dir
}

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

/** Loads commit-messages over the handle channel: its body is spooled into the session's folder. */
async function spoolSomething(client: Client, transport: StreamableHTTPClientTransport) {
  const loaded = await client.callTool({
    name: 'load_skill',
    arguments: { skill: 'commit-messages' },
  })
  expect(loaded.isError).toBeFalsy()
  const { handle } = JSON.parse(text(loaded)) as { handle: { id: string } }
  expect(handle.id).toMatch(/^r_[0-9a-f]{16}$/)
  return { id: handle.id, sessionId: transport.sessionId as string }
}

/** The embedded serve runtime behind a real Streamable HTTP server on port 0. */
async function serveInProcess(state: string, extra: Partial<ServeRuntimeOptions> = {}) {
  const runtime = await createServeRuntime({
    roots: [join(ROOT, 'examples/skills')],
    stateDir: state,
    importModules: false,
    scripts: false,
    gate: async () => undefined,
    log: () => undefined,
    ...extra,
  })
  const server = await serveMcpHttp({ createManager: runtime.createManager, port: 0 })
  const shutdown = async (): Promise<void> => {
    await server.close()
    await runtime.dispose()
  }
  return { runtime, server, shutdown }
}

describe('spool retention under serve --http (issue 10 item 20)', () => {
  it('removes a session spool when the session closes, and the rest at shutdown', async () => {
    const state = stateDir()
    const { runtime, server, shutdown } = await serveInProcess(state)
    const a = await connectHttp(server.url)
    const b = await connectHttp(server.url)
    const spooledA = await spoolSomething(a.client, a.transport)
    const spooledB = await spoolSomething(b.client, b.transport)
    const folderA = join(runtime.spoolRoot, spooledA.sessionId)
    const folderB = join(runtime.spoolRoot, spooledB.sessionId)
    expect(existsSync(join(folderA, `${spooledA.id}.bin`))).toBe(true)
    expect(existsSync(join(folderB, `${spooledB.id}.bin`))).toBe(true)

    await a.transport.terminateSession()
    await a.client.close()
    await waitFor(() => !existsSync(folderA))
    expect(existsSync(join(folderB, `${spooledB.id}.bin`))).toBe(true)

    await b.client.close() // without a DELETE: the session is still open at shutdown
    expect(server.sessionCount()).toBe(1)
    await shutdown()
    expect(existsSync(folderB)).toBe(false)
    expect(readdirSync(runtime.spoolRoot)).toEqual([])
  })

  it('durableSpool keeps every session spool after close and after shutdown', async () => {
    const state = stateDir()
    const { runtime, server, shutdown } = await serveInProcess(state, { durableSpool: true })
    const a = await connectHttp(server.url)
    const b = await connectHttp(server.url)
    const spooledA = await spoolSomething(a.client, a.transport)
    const spooledB = await spoolSomething(b.client, b.transport)
    await a.transport.terminateSession()
    await a.client.close()
    await b.client.close()
    await shutdown()
    expect(existsSync(join(runtime.spoolRoot, spooledA.sessionId, `${spooledA.id}.bin`))).toBe(true)
    expect(existsSync(join(runtime.spoolRoot, spooledB.sessionId, `${spooledB.id}.bin`))).toBe(true)
  })

  it('prunes closed sessions’ folders past the age bound at startup, and past the size bound', async () => {
    const state = stateDir()
    const root = join(state, 'spool')
    const make = async (name: string, daysAgo: number, bytes: number): Promise<string> => {
      const dir = join(root, name)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'r_0000000000000000.bin'), Buffer.alloc(bytes))
      const when = new Date(Date.now() - daysAgo * DAY)
      await utimes(dir, when, when)
      return dir
    }
    const old = await make('left-by-a-crash', 8, 1)
    const recent = await make('yesterday', 1, 1)
    const lines: string[] = []
    const first = await serveInProcess(state, { log: (l) => lines.push(l) })
    await first.shutdown()
    expect(existsSync(old)).toBe(false)
    expect(existsSync(recent)).toBe(true)
    expect(lines).toContain('spool: pruned 1 old session folder')

    const big = await make('big', 2, 4096)
    const second = await serveInProcess(state, { spoolRetention: { maxTotalBytes: 1024 } })
    await second.shutdown()
    expect(existsSync(big)).toBe(false)
    expect(existsSync(recent)).toBe(true)
  })
})

describe('skillhost serve --http spool (built binary, real MCP client)', () => {
  it('SIGTERM removes the spool of a session still open; --durable-spool keeps it', async () => {
    for (const durable of [false, true]) {
      const state = stateDir()
      const served = spawnServe([
        '--http',
        '0',
        '--no-scripts',
        // serve's default channel (auto) would inline this small body; a handle spools it.
        '--channel',
        'handle',
        '--state-dir',
        state,
        ...(durable ? ['--durable-spool'] : []),
        'examples/skills',
      ])
      const { client, transport } = await connectHttp(await listeningUrl(served))
      const spooled = await spoolSomething(client, transport)
      const file = join(state, 'spool', spooled.sessionId, `${spooled.id}.bin`)
      expect(existsSync(file)).toBe(true)
      await client.close()
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
      expect(served.stderr()).toContain('shutdown complete')
      expect(served.stderr()).toContain(
        durable
          ? 'spool: durable (kept after a session closes)'
          : 'spool: removed when its session closes',
      )
      expect(existsSync(file)).toBe(durable)
    }
  })
})
