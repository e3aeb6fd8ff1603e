import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const LIFECYCLE = [
  'list_loaded_skills',
  'list_skills',
  'load_skill',
  'refresh_skills',
  'unload_skill',
  // serve runs scripts, so the conversation's workspace tools come with them.
  'workspace_list',
  'workspace_read',
  'workspace_write',
]
const state = mkdtempSync(join(tmpdir(), 'skillhost-serve-test-'))
afterAll(() => rmSync(state, { recursive: true, force: true }))

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

interface Served {
  client: Client
  transport: StdioClientTransport
  stderr: () => string
  changes: () => number
  closed: Promise<void>
}

/** Starts the built `skillhost serve` binary and connects the SDK's real stdio client to it. */
async function serve(args: string[]): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/cli/main.js', 'serve', '--state-dir', state, ...args],
    cwd: ROOT,
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const client = new Client({ name: 'serve-test', version: '1.0.0' })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1
  })
  const closed = new Promise<void>((resolve) => {
    client.onclose = resolve
  })
  await client.connect(transport)
  return { client, transport, stderr: () => err, changes: () => changes, closed }
}

/** Polls `check` until it holds; the test timeout bounds it, not a count of turns (a loaded machine is slow). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

const names = async (client: Client): Promise<string[]> =>
  (await client.listTools()).tools.map((t) => t.name)

describe('skillhost serve over stdio (built binary, real MCP client)', () => {
  it('serves examples/skills: list, load, tools/list_changed, call, unload, clean exit on stdin close', async () => {
    const s = await serve(['--channel', 'handle', 'examples/skills'])
    expect((await names(s.client)).sort()).toEqual(LIFECYCLE)
    const listed = JSON.parse(text(await s.client.callTool({ name: 'list_skills', arguments: {} })))
    expect(listed.skills.map((k: { id: string }) => k.id).sort()).toEqual([
      'commit-messages',
      'form-fill',
      'json-tools',
      'unit-convert',
      'word-count',
    ])
    expect(JSON.stringify(listed)).not.toContain(ROOT)

    const loaded = await s.client.callTool({
      name: 'load_skill',
      arguments: { skill: 'commit-messages' },
    })
    expect(loaded.isError).toBeFalsy()
    const result = JSON.parse(text(loaded))
    expect(result).toMatchObject({ id: 'commit-messages', channel: 'handle' })
    await until(() => s.changes() >= 1)
    expect(await names(s.client)).toEqual(expect.arrayContaining([...LIFECYCLE, 'artifact_cat']))

    // The handle's body is read through the reader tools.
    const body = await s.client.callTool({
      name: 'artifact_cat',
      arguments: { id: result.handle.id },
    })
    expect(body.isError).toBeFalsy()
    expect(text(body)).toContain('# Commit messages')

    const seen = s.changes()
    const unloaded = await s.client.callTool({
      name: 'unload_skill',
      arguments: { skill: 'commit-messages' },
    })
    expect(JSON.parse(text(unloaded))).toMatchObject({ id: 'commit-messages' })
    await until(() => s.changes() > seen)

    const missing = await s.client.callTool({ name: 'load_skill', arguments: { skill: 'nope' } })
    expect(missing.isError).toBe(true)
    expect(text(missing)).toMatch(/^E_SKILL_NOT_FOUND: /)

    expect(s.stderr()).toContain('gate allow load_skill (lifecycle)')
    await s.client.close()
    await until(() => s.stderr().includes('shutdown complete'))
    expect(s.stderr()).toContain('stdin closed: shutting down')
  })

  it('watches the roots: a skill added on disk reaches the client as tools/list_changed and in list_skills; --no-watch does not', async () => {
    const root = mkdtempSync(join(tmpdir(), 'skillhost-serve-watch-'))
    const skill = (name: string): void => {
      mkdirSync(join(root, name))
      writeFileSync(
        join(root, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`,
      )
    }
    skill('first')
    const ids = async (c: Client): Promise<string[]> =>
      JSON.parse(text(await c.callTool({ name: 'list_skills', arguments: {} }))).skills.map(
        (k: { id: string }) => k.id,
      )
    const s = await serve(['--no-scripts', root])
    const quiet = await serve(['--no-scripts', '--no-watch', root])
    try {
      // Both servers answer initialize before discovery ends (discovery runs in the
      // background); 'second' is written only after both have discovered 'first'.
      await until(() => /discovered 1 skill in \d+ ms/.test(s.stderr()))
      await until(() => /discovered 1 skill in \d+ ms/.test(quiet.stderr()))
      expect(s.stderr()).toMatch(/watching \d+ folders? for changes/)
      expect(quiet.stderr()).not.toMatch(/watching/)
      expect(await ids(s.client)).toEqual(['first'])
      expect(await ids(quiet.client)).toEqual(['first'])
      const before = s.changes()
      skill('second')
      await until(() => s.changes() > before)
      expect((await ids(s.client)).sort()).toEqual(['first', 'second'])
      // Without watching, nothing is announced; the catalog changes on the next refresh.
      expect(quiet.changes()).toBe(0)
      expect(await ids(quiet.client)).toEqual(['first'])
      await quiet.client.callTool({ name: 'refresh_skills', arguments: {} })
      expect((await ids(quiet.client)).sort()).toEqual(['first', 'second'])
    } finally {
      await s.client.close()
      await quiet.client.close()
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('module tools are off unless --import-modules, then callable', async () => {
    const off = await serve(['examples/skills'])
    const without = JSON.parse(
      text(await off.client.callTool({ name: 'load_skill', arguments: { skill: 'unit-convert' } })),
    )
    expect(without.toolsAdded).not.toContain('convert_units')
    // serve's default channel is auto: a small body comes inline.
    expect(without.channel).toBe('inline')
    expect(without.body).toContain('# Unit convert')
    await off.client.close()

    const on = await serve(['--import-modules', '--channel', 'inline', 'examples/skills'])
    const loaded = JSON.parse(
      text(await on.client.callTool({ name: 'load_skill', arguments: { skill: 'unit-convert' } })),
    )
    expect(loaded.toolsAdded).toContain('convert_units')
    expect(loaded.body).toContain('# Unit convert')
    expect(await names(on.client)).toContain('convert_units')
    const converted = await on.client.callTool({
      name: 'convert_units',
      arguments: { value: 5, from: 'mi', to: 'km' },
    })
    expect(converted.isError).toBeFalsy()
    expect(text(converted)).toContain('8.04672 km')
    // stderr is another pipe than the protocol's: its line may arrive after the result.
    await until(() => on.stderr().includes('gate allow convert_units (module, skill unit-convert@'))
    await on.client.close()
  })

  it('--gate-policy refuses by rule with the policy reason, and logs the decision', async () => {
    const policy = join(state, 'policy.json')
    writeFileSync(
      policy,
      JSON.stringify({ rules: [{ tool: 'load_*', effect: 'deny', reason: 'no loading today' }] }),
    )
    const s = await serve(['--gate-policy', policy, 'examples/skills'])
    const refused = await s.client.callTool({
      name: 'load_skill',
      arguments: { skill: 'commit-messages' },
    })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/^E_TOOL_DENIED: .*no loading today/)
    await until(() => s.stderr().includes('gate DENY load_skill (lifecycle): no loading today'))
    await s.client.close()
  })

  it('shuts down cleanly on SIGTERM: managers disposed and the sandbox workspace removed', async () => {
    const s = await serve(['examples/skills'])
    const loaded = JSON.parse(
      text(await s.client.callTool({ name: 'load_skill', arguments: { skill: 'word-count' } })),
    )
    const workspace = /workspace (\S+)/.exec(s.stderr())?.[1]
    if (workspace) {
      // serve lets the skill's undeclared files run too, through one more tool.
      expect(loaded.toolsAdded).toEqual(['run_word_count_count', 'run_word_count_script'])
      const ran = await s.client.callTool({
        name: 'run_word_count_count',
        arguments: { file: '/skill/samples/sample.txt' },
      })
      expect(ran.isError).toBeFalsy()
      const id = /output: (r_[0-9a-f]{16})/.exec(text(ran))?.[1]
      const out = await s.client.callTool({ name: 'artifact_cat', arguments: { id } })
      expect(text(out)).toMatch(/words: \d+/)
      expect(text(out)).not.toContain(workspace)
      await until(() =>
        s.stderr().includes('gate allow run_word_count_count (script, skill word-count@'),
      )
    }
    const pid = s.transport.pid
    expect(pid).toBeTypeOf('number')
    process.kill(pid as number, 'SIGTERM')
    await s.closed
    await until(() => s.stderr().includes('shutdown complete'))
    expect(s.stderr()).toContain('SIGTERM: shutting down')
    if (workspace) expect(existsSync(workspace)).toBe(false)
    else expect(s.stderr()).toContain('scripts off: ')
  })

  it('logs hostile tool names and skill errors on one escaped line each (issue 10 item 19)', async () => {
    // A skill whose description and isolated tool's error carry an ESC
    // sequence, a carriage return and a newline that starts a forged log line.
    const hostile = 'x\u001b[2J\rcovered\nskillhost serve: call forged ok'
    const root = join(state, 'hostile-root')
    mkdirSync(join(root, 'hostile', 'tools'), { recursive: true })
    writeFileSync(
      join(root, 'hostile', 'SKILL.md'),
      `---\nname: hostile\ndescription: ${JSON.stringify(`Hostile ${hostile}`)}\n---\n# Hostile\n`,
    )
    writeFileSync(
      join(root, 'hostile', 'skillhost.yaml'),
      [
        'isolatedTools:',
        '  - name: hostile_throw',
        '    description: Throws an error with a hostile message.',
        '    source: tools/throw.js',
        '    params: { type: object, properties: {}, additionalProperties: false }',
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(root, 'hostile', 'tools', 'throw.js'),
      `;async () => { throw new Error(${JSON.stringify(`boom ${hostile}`)}) }\n`,
    )
    const s = await serve(['--no-scripts', root])
    const listed = JSON.parse(text(await s.client.callTool({ name: 'list_skills', arguments: {} })))
    expect(listed.skills[0].description).toBe(`Hostile ${hostile}`)
    const loaded = JSON.parse(
      text(await s.client.callTool({ name: 'load_skill', arguments: { skill: 'hostile' } })),
    )
    expect(loaded.toolsAdded).toEqual(['hostile_throw'])
    const threw = await s.client.callTool({ name: 'hostile_throw', arguments: {} })
    expect(threw.isError).toBe(true)
    expect(text(threw)).toContain('boom x')
    // A tool name (chosen by the client) and a skill id (chosen by the model).
    const unknown = s.client.callTool({ name: `evil${hostile}`, arguments: {} })
    await expect(unknown).rejects.toThrow(/^MCP error -32602: E_TOOL_NOT_FOUND: /)
    await expect(unknown).rejects.not.toThrow('\u001b')
    const missing = await s.client.callTool({
      name: 'load_skill',
      arguments: { skill: `nope${hostile}` },
    })
    expect(text(missing)).toMatch(/^E_SKILL_NOT_FOUND: /)
    await s.client.close()
    await until(() => s.stderr().includes('shutdown complete'))

    const log = s.stderr()
    expect(log).not.toContain('\u001b')
    expect(log).not.toContain('\r')
    const lines = log.trimEnd().split('\n')
    // Every line is one of serve's own; none is the forged one.
    for (const line of lines) expect(line).toMatch(/^skillhost serve: /)
    expect(lines.filter((l) => l.startsWith('skillhost serve: call forged'))).toEqual([])
    const escaped = 'x\\u001b[2J\\u000dcovered\\nskillhost serve: call forged ok'
    expect(
      lines.find((l) => l.startsWith('skillhost serve: call hostile_throw failed: ')),
    ).toContain(`boom ${escaped}`)
    expect(lines.find((l) => l.startsWith('skillhost serve: call evil'))).toContain(
      `call evil${escaped} failed: E_TOOL_NOT_FOUND: `,
    )
    // With a ':' in it the model's text reads as a (malformed) ref: named by its fault, never repeated.
    const loadLine = lines.find((l) => l.startsWith('skillhost serve: call load_skill failed: '))
    expect(loadLine).toContain('E_SKILL_NOT_FOUND: No skill has that ref')
    expect(loadLine).not.toContain('covered')
  })

  it("runs a loaded skill's !`command` lines in the sandbox, unless --no-dynamic-context", async () => {
    const root = mkdtempSync(join(tmpdir(), 'skillhost-serve-dynamic-'))
    mkdirSync(join(root, 'where'))
    writeFileSync(
      join(root, 'where', 'SKILL.md'),
      '---\nname: where\ndescription: Says where it runs.\n---\nCwd: !`pwd`\nUser: !`id -u`\n',
    )
    const body = async (args: string[]) => {
      const s = await serve(args)
      try {
        const loaded = JSON.parse(
          text(await s.client.callTool({ name: 'load_skill', arguments: { skill: 'where' } })),
        )
        return String(loaded.body)
      } finally {
        await s.client.close()
      }
    }
    try {
      const on = await body(['--channel', 'inline', root])
      expect(on).toContain('Cwd: /work\n')
      // Not the host's root: the sandbox user.
      expect(on).toMatch(/User: [1-9]\d*\n/)
      const off = await body(['--channel', 'inline', '--no-dynamic-context', root])
      expect(off).toContain('Cwd: !`pwd` [not run: dynamic context is off on this host]')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('rejects bad options with a usage error', async () => {
    const { execFile } = await import('node:child_process')
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          ['dist/cli/main.js', 'serve', ...args],
          { cwd: ROOT },
          (_e, _o, stderr) => resolve({ code: child.exitCode, stderr }),
        )
      })
    expect(await run(['--gate', 'yolo', 'examples/skills'])).toMatchObject({ code: 2 })
    // A root that cannot be searched is not a usage error: named, and with no other root, exit 1.
    const missing = await run(['does-not-exist'])
    expect(missing).toMatchObject({ code: 1 })
    expect(missing.stderr).toContain('skill root does-not-exist does not exist')
    expect((await run(['--http', 'abc', 'examples/skills'])).stderr).toContain(
      '--http needs a port',
    )
  })
})
