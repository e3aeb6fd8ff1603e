import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import { delta, moved, parseSamples, promtoolCheck } from '../helpers/prometheus.js'
import { connectHttp, stopServed } from '../helpers/serve-clients.js'
import { listeningUrl, ROOT, type ServeProcess, spawnServe } from '../helpers/spawn-serve.js'

const TOKEN = 'metrics-test-token'
const work = mkdtempSync(join(tmpdir(), 'skillhost-metrics-test-'))
const root = join(work, 'skills')
cpSync(join(ROOT, 'examples/skills'), root, { recursive: true })
afterAll(() => rmSync(work, { recursive: true, force: true }))

const spawned: ServeProcess[] = []
const clients: Client[] = []
afterEach(() => stopServed({ spawned, clients }))

async function serve(extra: readonly string[]): Promise<URL> {
  const served = spawnServe([
    '--http',
    '0',
    '--state-dir',
    join(work, `state-${spawned.length}`),
    ...extra,
    root,
  ])
  spawned.push(served)
  return listeningUrl(served)
}

const at = (url: URL, path: string) => new URL(path, url)
const bearer = { authorization: `Bearer ${TOKEN}` }

async function scrape(url: URL): Promise<{ text: string; samples: Map<string, number> }> {
  const res = await fetch(at(url, '/metrics'), { headers: bearer })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  const text = await res.text()
  return { text, samples: parseSamples(text) }
}

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n')

const calls = (kind: string, outcome: string, skill: string) =>
  `skillhost_tool_calls_total{kind="${kind}",outcome="${outcome}",skill="${skill}"}`

describe('serve --http /metrics (issue 41 item 2)', () => {
  it('counts exactly the calls made (lifecycle, isolated, script, unknown), and promtool accepts the exposition', async () => {
    const url = await serve(['--token', TOKEN])
    expect((await fetch(at(url, '/metrics'))).status).toBe(401)
    const before = await scrape(url)
    expect(promtoolCheck(before.text)).toMatchObject({ status: 0 })

    const { client } = await connectHttp(url, TOKEN)
    clients.push(client)
    await client.callTool({ name: 'list_skills', arguments: {} })
    await client.callTool({ name: 'load_skill', arguments: { skill: 'word-count' } })
    await client.callTool({ name: 'load_skill', arguments: { skill: 'json-tools' } })
    const counted = await client.callTool({
      name: 'run_word_count_count',
      arguments: { file: 'samples/sample.txt' },
    })
    expect(counted.isError, text(counted)).toBeFalsy()
    const stats = await client.callTool({ name: 'json_stats', arguments: { value: { a: [1] } } })
    expect(stats.isError, text(stats)).toBeFalsy()
    // A refused load: the outcome is its code.
    await client.callTool({ name: 'load_skill', arguments: { skill: 'no-such-skill' } })
    await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined)
    await client.callTool({ name: 'unload_skill', arguments: { skill: 'word-count' } })

    const after = await scrape(url)
    const check = promtoolCheck(after.text)
    expect(check.output).toBe('')
    expect(check.status).toBe(0)
    expect(moved(before.samples, after.samples, 'skillhost_tool_calls_total')).toEqual({
      [calls('lifecycle', 'ok', 'none')]: 4,
      [calls('lifecycle', 'E_SKILL_NOT_FOUND', 'none')]: 1,
      [calls('script', 'ok', 'word-count')]: 1,
      [calls('isolated', 'ok', 'json-tools')]: 1,
      [calls('unknown', 'E_TOOL_NOT_FOUND', 'none')]: 1,
    })
    const seconds = (tier: string) => `skillhost_tool_call_duration_seconds_count{tier="${tier}"}`
    expect(delta(before.samples, after.samples, seconds('script'))).toBe(1)
    expect(delta(before.samples, after.samples, seconds('isolated'))).toBe(1)
    expect(delta(before.samples, after.samples, seconds('lifecycle'))).toBe(5)
    // One script call: one bubblewrap start, none failed (the startup probe is no call's).
    expect(delta(before.samples, after.samples, 'skillhost_sandbox_starts_total')).toBe(1)
    expect(delta(before.samples, after.samples, 'skillhost_sandbox_start_failures_total')).toBe(0)
    expect(
      delta(before.samples, after.samples, 'skillhost_isolated_queue_wait_seconds_count'),
    ).toBe(1)
    expect(
      delta(before.samples, after.samples, 'skillhost_spool_bytes_total{store="file"}'),
    ).toBeGreaterThan(0)
    expect(after.samples.get('skillhost_sessions_total{event="opened"}')).toBe(1)
    expect(after.samples.get('skillhost_sessions_open')).toBe(1)
    // Nothing a skill chose beyond its id, no host path.
    expect(after.text).not.toContain(work)
    expect(after.text).not.toContain('sample.txt')
  }, 120_000)

  it('probes are never sessions: /healthz, /readyz and /metrics leave the session counters alone', async () => {
    const url = await serve(['--token', TOKEN])
    for (let i = 0; i < 5; i++) {
      expect((await fetch(at(url, '/healthz'))).status).toBe(200)
      expect((await fetch(at(url, '/readyz'))).status).toBe(200)
    }
    const { samples } = await scrape(url)
    expect(samples.get('skillhost_sessions_open')).toBe(0)
    expect([...samples.keys()].some((k) => k.startsWith('skillhost_sessions_total{'))).toBe(false)
  }, 120_000)

  it('counts HTTP limits by limit and status (413)', async () => {
    const url = await serve(['--token', TOKEN, '--max-body-mib', '0.001'])
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        ...bearer,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(4096) },
      }),
    })
    expect(res.status).toBe(413)
    const { samples } = await scrape(url)
    expect(samples.get('skillhost_http_limits_total{limit="bodyBytes",status="413"}')).toBe(1)
  }, 120_000)
})

/** This machine's first address that is not loopback: a peer the loopback rule does not cover. */
function outsideAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)
  if (!found) throw new Error('this test needs a non-loopback IPv4 interface')
  return found.address
}

describe('who may probe (issue 41 item 1)', () => {
  it('beyond loopback, /healthz and /readyz need the token unless --health-public; /metrics unless --metrics-public', async () => {
    const address = outsideAddress()
    const closed = await serve(['--token', TOKEN, '--host', '0.0.0.0'])
    const outside = (url: URL, path: string) => new URL(`http://${address}:${url.port}${path}`)
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await fetch(outside(closed, path))
      expect(res.status, path).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
      expect((await fetch(outside(closed, path), { headers: bearer })).status, path).toBe(200)
    }
    // Ways around the rule, each refused: a forwarded-for or Host naming loopback (the
    // peer's address decides, never a header), a query string, another method.
    const spoofs: [string, RequestInit][] = [
      ['/healthz', { headers: { 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1' } }],
      ['/readyz', { headers: { host: `127.0.0.1:${closed.port}` } }],
      ['/readyz?ready=1', {}],
      ['/healthz', { method: 'POST', body: '{}' }],
      ['/mcp/../metrics', {}],
    ]
    for (const [path, init] of spoofs)
      expect((await fetch(outside(closed, path), init)).status, path).toBe(401)
    // From loopback the health paths are open; metrics are not.
    expect((await fetch(at(closed, '/healthz'))).status).toBe(200)
    expect((await fetch(at(closed, '/metrics'))).status).toBe(401)

    const open = await serve([
      '--token',
      TOKEN,
      '--host',
      '0.0.0.0',
      '--health-public',
      '--metrics-public',
    ])
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await fetch(outside(open, path))).status, path).toBe(200)
    // The MCP endpoint is not opened by either flag.
    expect((await fetch(outside(open, '/mcp'), { method: 'POST' })).status).toBe(401)
    const health = await (await fetch(outside(open, '/readyz'))).json()
    expect(health).toEqual({
      status: 'ready',
      checks: { catalog: 'ok', postgres: 'off', sandbox: 'ok' },
    })
  }, 120_000)
})

describe('the probe flags', () => {
  it('--health-public and --metrics-public need --http, and are kept with it', () => {
    expect(() => parseServeOptions(['--health-public', root])).toThrow(
      '--health-public needs --http',
    )
    expect(() => parseServeOptions(['--metrics-public', root])).toThrow(
      '--metrics-public needs --http',
    )
    const http = parseServeOptions([
      '--http',
      '0',
      '--health-public',
      '--metrics-public',
      root,
    ]).http
    expect(http).toMatchObject({ healthPublic: true, metricsPublic: true })
    expect(parseServeOptions(['--http', '0', root]).http).not.toHaveProperty('healthPublic')
  }, 120_000)
})
