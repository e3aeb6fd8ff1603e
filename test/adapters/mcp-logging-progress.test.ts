import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type CallToolResult,
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { deny } from '../../src/common/gate.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../../src/tiers/scripts/index.js'

const onLinux = process.platform === 'linux'

// A skill with three sh scripts: one naps briefly, one exits 3, and one the
// host's gate refuses. Its folder is the one host path that must never show.
const SKILL_MD =
  '---\nname: napper\ndescription: Naps, fails, and asks for what it may not do.\n---\n\nRun the scripts.\n'
const SIDECAR = `scripts:
  - name: nap
    path: scripts/nap.sh
    description: Sleeps a moment, then says so.
    interpreter: sh
  - name: fail
    path: scripts/fail.sh
    description: Exits 3.
    interpreter: sh
  - name: forbidden
    path: scripts/forbidden.sh
    description: The host refuses it.
    interpreter: sh
`
const root = mkdtempSync(join(tmpdir(), 'skillhost-mcp-log-'))
const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

let sandbox: ScriptSandbox
let server: McpHttpServer
beforeAll(async () => {
  if (!onLinux) return
  const skill = join(root, 'napper')
  mkdirSync(join(skill, 'scripts'), { recursive: true })
  writeFileSync(join(skill, 'SKILL.md'), SKILL_MD)
  writeFileSync(join(skill, 'skillhost.yaml'), SIDECAR)
  writeFileSync(join(skill, 'scripts/nap.sh'), 'sleep 0.3\necho rested\n')
  writeFileSync(join(skill, 'scripts/fail.sh'), 'echo "no luck in $0" >&2\nexit 3\n')
  writeFileSync(join(skill, 'scripts/forbidden.sh'), 'echo should not run\n')
  chmodSync(root, 0o755)
  sandbox = await createScriptSandbox({ maxTimeoutSeconds: 30, defaultTimeoutSeconds: 30 })
  server = await serveMcpHttp({
    createManager: () =>
      createSkillManager({
        sources: [new FileSystemSkillSource({ roots: [root] })],
        gate: (_ctx, request) => {
          if (request.tool === 'run_napper_forbidden') throw deny('not on this host')
        },
        scripts: sandbox.config,
      }),
  })
})
afterAll(async () => {
  await server?.close()
  await sandbox?.dispose()
  rmSync(root, { recursive: true, force: true })
})

interface Logged {
  readonly level: string
  readonly logger?: string
  readonly data: Record<string, unknown>
}

/** A real SDK client over Streamable HTTP that records every log message and every raw message. */
async function connect() {
  const transport = new StreamableHTTPClientTransport(server.url)
  const client = new Client({ name: 'log-test', version: '1.0.0' })
  const logged: Logged[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
    logged.push(n.params as Logged)
  })
  await client.connect(transport)
  const raw: JSONRPCMessage[] = []
  const deliver = transport.onmessage
  transport.onmessage = (message: JSONRPCMessage) => {
    raw.push(message)
    deliver?.(message)
  }
  const call = async (name: string, onprogress?: (p: Progress) => void) => {
    const result = await client.callTool({ name, arguments: {} }, undefined, {
      ...(onprogress && { onprogress }),
    })
    // A round trip after the call: every notification sent before its response has been handled.
    await client.ping()
    return result
  }
  return { client, logged, raw, call }
}

describe.runIf(onLinux)('MCP logging and progress (issue 24, part 5)', () => {
  it('declares logging; setLevel filters: a gate refusal logs a warning, nothing below the level is sent', async () => {
    const { client, logged, call } = await connect()
    expect(client.getServerCapabilities()?.logging).toEqual({})
    const loaded = await client.callTool({ name: 'load_skill', arguments: { skill: 'napper' } })
    expect(loaded.isError).toBeFalsy()
    // The default level is info: the load's debug "allowed" record is not sent.
    await client.ping()
    expect(logged).toEqual([])

    await client.setLoggingLevel('warning')
    const refused = await call('run_napper_forbidden')
    expect(text(refused)).toMatch(/^E_SKILL_SCRIPT_DENIED: /)
    expect((await call('run_napper_nap')).isError).toBeFalsy()
    expect(logged).toEqual([
      {
        level: 'warning',
        logger: 'skillhost.gate',
        data: expect.objectContaining({
          event: 'gate',
          decision: 'refused',
          tool: 'run_napper_forbidden',
          tier: 'script',
          skill: 'napper',
          code: 'E_SKILL_SCRIPT_DENIED',
        }),
      },
    ])

    await client.setLoggingLevel('error')
    await call('run_napper_forbidden')
    expect(logged).toHaveLength(1)

    await client.setLoggingLevel('debug')
    await call('run_napper_nap')
    await call('run_napper_fail')
    expect(logged.slice(1)).toEqual([
      {
        level: 'debug',
        logger: 'skillhost.gate',
        data: expect.objectContaining({ decision: 'allowed', tool: 'run_napper_nap' }),
      },
      {
        level: 'info',
        logger: 'skillhost.script',
        data: expect.objectContaining({ event: 'script-exit', tool: 'run_napper_nap', ok: true }),
      },
      {
        level: 'warning',
        logger: 'skillhost.script',
        data: expect.objectContaining({ tool: 'run_napper_fail', ok: false, exitCode: 3 }),
      },
    ])
    // Names, codes and numbers only: no host path, no script output.
    const all = JSON.stringify(logged)
    expect(all).not.toContain(root)
    expect(all).not.toContain('no luck')
    await client.close()
  })

  it('a call with a progress token gets increasing progress ending at its total; without one, none', async () => {
    const { client, raw, call } = await connect()
    // Provisioning (load_skill copies the skill and forges its tools) and discovery (refresh_skills) report too.
    const lifecycle: Progress[] = []
    const loaded = await client.callTool(
      { name: 'load_skill', arguments: { skill: 'napper' } },
      undefined,
      { onprogress: (p) => lifecycle.push(p) },
    )
    expect(loaded.isError).toBeFalsy()
    expect(lifecycle.at(0)?.message).toBe('started')
    expect(lifecycle.at(-1)?.message).toBe('finished')
    const refreshed: Progress[] = []
    await client.callTool({ name: 'refresh_skills', arguments: {} }, undefined, {
      onprogress: (p) => refreshed.push(p),
    })
    expect(refreshed.at(-1)?.message).toBe('finished')

    const progress: Progress[] = []
    const result = await call('run_napper_nap', (p) => progress.push(p))
    expect(text(result)).toContain('rested')
    // Started and finished at least; a slow machine adds "running" reports between them.
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress[0]).toMatchObject({ progress: 0, message: 'started' })
    const last = progress.at(-1)
    expect(last).toMatchObject({ message: 'finished', total: last?.progress })
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]?.progress).toBeGreaterThan(progress[i - 1]?.progress as number)

    const failed: Progress[] = []
    await call('run_napper_fail', (p) => failed.push(p))
    expect(failed.at(-1)).toMatchObject({ message: 'failed' })

    const before = raw.length
    await call('run_napper_nap')
    const sent = raw
      .slice(before)
      .filter((m) => 'method' in m && m.method === 'notifications/progress')
    expect(sent).toEqual([])
    // The calls above with a token did receive theirs on the same transport.
    expect(raw.filter((m) => 'method' in m && m.method === 'notifications/progress').length).toBe(
      lifecycle.length + refreshed.length + progress.length + failed.length,
    )
    await client.close()
  })
})
