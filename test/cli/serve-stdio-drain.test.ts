import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/spawn-serve.js'

const state = mkdtempSync(join(tmpdir(), 'skillhost-stdio-drain-'))
afterAll(() => rmSync(state, { recursive: true, force: true }))

/** A JSON-RPC message as the server wrote it. */
interface Wire {
  id?: number
  method?: string
  result?: {
    serverInfo?: { name: string }
    tools?: { name: string }[]
    isError?: boolean
    content?: unknown
  }
  error?: { code: number }
}

const line = (message: object): string => `${JSON.stringify(message)}\n`

/**
 * Runs the built `skillhost serve` over examples/skills, writes `input` in
 * one write, ends stdin, and returns every message it wrote and its exit code.
 */
async function pipeThrough(input: string): Promise<{ messages: Wire[]; code: number | null }> {
  const child = spawn(
    process.execPath,
    ['dist/cli/main.js', 'serve', '--state-dir', state, 'examples/skills'],
    { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME } },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
  })
  child.stderr.resume()
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.stdin.end(input)
  const code = await exited
  return {
    messages: out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Wire),
    code,
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'p', version: '1' },
  },
}
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }

describe('skillhost serve on stdio keeps every request piped in before stdin closes', () => {
  it('answers initialize, then tools/list, then exits 0 when all three lines come at once', async () => {
    const { messages, code } = await pipeThrough(
      line(initialize) + line(initialized) + line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(code).toBe(0)
    expect(messages.map((m) => m.id)).toEqual([1, 2])
    expect(messages[0]?.result?.serverInfo?.name).toBe('skillhost')
    expect(messages[1]?.result?.tools?.map((t) => t.name)).toContain('load_skill')
  })

  it('answers every held request, a tool call among them, before it exits', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'load_skill', arguments: { skill: 'word-count' } },
      },
      { jsonrpc: '2.0', id: 5, method: 'resources/list' },
      { jsonrpc: '2.0', id: 6, method: 'no/such-method' },
    ]
    const { messages, code } = await pipeThrough(
      line(initialize) + line(initialized) + requests.map(line).join(''),
    )
    expect(code).toBe(0)
    const answers = messages.filter((m) => m.id !== undefined && !m.method)
    expect(answers.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 5, 6])
    // Each answered exactly once (the replayed initialize's second answer is dropped).
    expect(answers).toHaveLength(6)
    const loaded = answers.find((m) => m.id === 4)
    expect(loaded?.result?.isError).toBeFalsy()
    expect(JSON.stringify(loaded?.result?.content)).toContain('word-count')
    expect(answers.find((m) => m.id === 6)?.error?.code).toBe(-32601)
  })
})
