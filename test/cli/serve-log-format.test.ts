import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectHttp } from '../helpers/serve-clients.js'
import { spawnServe, waitFor } from '../helpers/spawn-serve.js'

// Issue 41 item 4: `serve --log-format json` writes one JSON object per
// event on stderr. The built binary (`npx tsc -p tsconfig.build.json` first)
// and the SDK's real client.
const state = mkdtempSync(join(tmpdir(), 'skillhost-log-format-'))
afterAll(() => rmSync(state, { recursive: true, force: true }))

interface Event {
  readonly time: string
  readonly level: string
  readonly session?: string
  readonly code?: string
  readonly message: string
}

// Every control a terminal acts on, raw: C0 but tab and newline, DEL, C1 (CSI is \u009b), separators, bidi.
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw controls is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** Every stderr line, parsed (a line that is not JSON fails the test here). */
function events(stderr: string): Event[] {
  const lines = stderr.split('\n')
  expect(lines.pop()).toBe('')
  return lines.map((line) => {
    const parsed = JSON.parse(line) as Event
    expect(Object.keys(parsed)[0], line).toBe('time')
    return parsed
  })
}

describe('serve --log-format json', () => {
  it('every stderr line is one JSON event: time, level, session and code when there are, the message escaped', async () => {
    const missing = join(state, 'no-such-root')
    const served = spawnServe([
      '--http',
      '0',
      '--no-scripts',
      '--log-format',
      'json',
      '--state-dir',
      state,
      'examples/skills',
      missing,
    ])
    try {
      const listening = () =>
        served
          .stderr()
          .split('\n')
          .find((l) => l.includes('listening on'))
      await waitFor(() => listening() !== undefined)
      const href = (JSON.parse(listening() as string) as Event).message.replace('listening on ', '')
      const url = new URL(href)
      url.hostname = '127.0.0.1'
      const { client, transport } = await connectHttp(url)
      const id = transport.sessionId as string
      const loaded = await client.callTool({
        name: 'load_skill',
        arguments: { skill: 'word-count' },
      })
      expect(loaded.isError).toBeFalsy()
      // A name with every kind of control in it: ESC, CSI (C1), a line separator, a bidi override.
      const evil = 'evil\u001b[2J\u009b31m\u2028forged\u202eline'
      await expect(client.callTool({ name: evil, arguments: {} })).rejects.toThrow()
      await transport.terminateSession()
      await waitFor(() => served.stderr().includes(`session ${id} closed`))
      await client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited).toBe(0)
    }
    const stderr = served.stderr()
    expect(stderr).not.toMatch(RAW_CONTROL)
    const all = events(stderr)
    expect(all.length).toBeGreaterThan(8)
    for (const e of all) {
      expect(new Date(e.time).toISOString()).toBe(e.time)
      expect(['info', 'warning', 'error']).toContain(e.level)
      expect(typeof e.message).toBe('string')
      // Parsed back, the message still shows controls as escapes, never raw.
      expect(e.message).not.toMatch(RAW_CONTROL)
    }
    // The root that cannot be searched, written by a shared helper: a warning event too.
    expect(all).toContainEqual(
      expect.objectContaining({ level: 'warning', message: expect.stringContaining(missing) }),
    )
    const opened = all.find((e) => e.message.endsWith(' opened'))
    const id = opened?.session as string
    expect(opened?.message).toBe(`session ${id} opened`)
    expect(all).toContainEqual(
      expect.objectContaining({ level: 'info', session: id, message: 'call load_skill ok' }),
    )
    const failed = all.find((e) => e.code === 'E_TOOL_NOT_FOUND')
    expect(failed).toMatchObject({ level: 'warning', session: id })
    expect(failed?.message).toContain('evil\\u001b[2J\\u009b31m\\u2028forged\\u202eline')
    expect(all.at(-1)?.message).toBe('shutdown complete')
  })

  it('a failure once the options are read is a JSON error event with its code; a bad value is a usage error', async () => {
    const served = spawnServe([
      '--log-format',
      'json',
      '--state-dir',
      state,
      '--locked',
      join(state, 'no-such.lock.json'),
      'examples/skills',
    ])
    expect(await served.exited).toBe(1)
    const last = events(served.stderr()).at(-1)
    expect(last).toMatchObject({ level: 'error', code: expect.stringMatching(/^E_/) })

    const bad = spawnServe(['--log-format', 'xml', 'examples/skills'])
    expect(await bad.exited).toBe(2)
    expect(bad.stderr()).toContain('--log-format must be text or json')
  })
})
