import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  type CallToolResult,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'
import { connectHttp } from '../helpers/serve-clients.js'
import { listeningUrl, ROOT, spawnServe, waitFor } from '../helpers/spawn-serve.js'

// Issue 36 item 1, "done when": files out over MCP alone, with the official
// SDK client, against the built `skillhost serve`, over HTTP and over stdio.
const linux = process.platform === 'linux'
const temp = mkdtempSync(join(tmpdir(), 'skillhost-serve-files-'))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

/** A skill whose script makes a binary output from a binary input, in the workspace (/work). */
function binarySkill(): string {
  const root = join(temp, 'skills')
  const dir = join(root, 'bin-double')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(
    join(dir, 'SKILL.md'),
    '---\nname: bin-double\ndescription: Doubles in.bin into out.bin.\n---\n# bin-double\n',
  )
  writeFileSync(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: double\n    path: scripts/double.sh\n    description: Doubles in.bin into out/result.bin.\n    interpreter: sh\n',
  )
  // Both copies of the input, then 0xFF, NUL, a BOM and CRLF: bytes no text path keeps.
  writeFileSync(
    join(dir, 'scripts', 'double.sh'),
    "set -eu\nmkdir -p out\ncat in.bin in.bin > out/result.bin\nprintf '\\377\\000\\357\\273\\277\\r\\n' >> out/result.bin\n",
  )
  chmodSync(temp, 0o755)
  return root
}

/** The input: a BOM, NUL, 0xFF and CRLF among text. */
const INPUT = Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0x00, 0xff, 0x0d, 0x0a, 0x42, 0xfe, 0x00])
const OUTPUT = Buffer.concat([
  INPUT,
  INPUT,
  Buffer.from([0xff, 0x00, 0xef, 0xbb, 0xbf, 0x0d, 0x0a]),
])

type Block = CallToolResult['content'][number]

/** Writes the input, runs the script, and reads the output's bytes through resources/read alone. */
async function roundTrip(client: Client): Promise<{ link: Block & { type: 'resource_link' } }> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    return result
  }
  let changed = 0
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    changed++
  })
  await call('load_skill', { skill: 'bin-double' })
  const wrote = await call('workspace_write', {
    path: 'in.bin',
    content: INPUT.toString('base64'),
    encoding: 'base64',
  })
  // The write is linked and, being small, embedded: the exact bytes come back.
  const embedded = wrote.content.find((b) => b.type === 'resource')
  expect(embedded?.type === 'resource' && embedded.resource).toMatchObject({
    blob: INPUT.toString('base64'),
  })
  await waitFor(() => changed >= 1)
  const seen = changed
  const ran = await call('run_bin_double_double', {})
  await waitFor(() => changed > seen)
  const link = ran.content.find(
    (b): b is Block & { type: 'resource_link' } =>
      b.type === 'resource_link' && b.name === 'out/result.bin',
  )
  expect(link).toMatchObject({ size: OUTPUT.length, title: '/work/out/result.bin' })
  if (!link) throw new Error('no link')
  expect(link.uri).toMatch(/^skillhost-workspace:\/\/[A-Za-z0-9_-]{22}\/out\/result\.bin$/)
  const read = await client.readResource({ uri: link.uri })
  const content = read.contents[0]
  expect(content && 'blob' in content).toBe(true)
  expect(Buffer.from((content as { blob: string }).blob, 'base64').equals(OUTPUT)).toBe(true)
  // The session's workspace is listed, after the skill files.
  const listed: string[] = []
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor })
    listed.push(...page.resources.map((r) => r.uri))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  expect(listed).toEqual(
    expect.arrayContaining([link.uri, link.uri.replace(/out\/result\.bin$/, 'in.bin')]),
  )
  return { link }
}

const serveArgs = (state: string, root: string) => [
  '--state-dir',
  state,
  '--interpreter',
  'sh=/bin/sh',
  root,
]

describe.skipIf(!linux)('files out over MCP (issue 36 item 1, built binary)', () => {
  it('over HTTP: a binary input in, the script’s binary output out, byte-exact, through resources alone; another session cannot read it', async () => {
    const root = binarySkill()
    const served = spawnServe(['--http', '0', ...serveArgs(join(temp, 'state-http'), root)])
    const url = await listeningUrl(served)
    try {
      const a = await connectHttp(url)
      const { link } = await roundTrip(a.client)
      const b = await connectHttp(url)
      // Another session neither lists nor reads A's file.
      await expect(b.client.readResource({ uri: link.uri })).rejects.toThrow(/-32602/)
      const bList = await b.client.listResources()
      let cursor = bList.nextCursor
      const bUris = bList.resources.map((r) => r.uri)
      while (cursor !== undefined) {
        const page = await b.client.listResources({ cursor })
        bUris.push(...page.resources.map((r) => r.uri))
        cursor = page.nextCursor
      }
      expect(bUris.filter((u) => u.startsWith('skillhost-workspace:'))).toEqual([])
      await a.client.close()
      await b.client.close()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exited, served.stderr()).toBe(0)
    }
  })

  it('over stdio: the same round trip', async () => {
    const root = binarySkill()
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/cli/main.js', 'serve', ...serveArgs(join(temp, 'state-stdio'), root)],
      cwd: ROOT,
      env: getDefaultEnvironment(),
      stderr: 'pipe',
    })
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const client = new Client({ name: 'files-out-stdio', version: '1.0.0' })
    await client.connect(transport)
    try {
      await roundTrip(client)
    } finally {
      await client.close()
    }
  })
})
