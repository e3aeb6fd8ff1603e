import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connectHttp, type Served, stopServed } from '../helpers/serve-clients.js'
import { continueSession, startReplicas } from '../helpers/serve-replicas.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'
import type { ServeProcess } from '../helpers/spawn-serve.js'

// Issue 36, "done when": files written and outputs made on replica A are read
// on replica B after A is killed with SIGKILL, over MCP alone, with the
// official SDK client against two real `serve --http --postgres` binaries.
const linux = process.platform === 'linux'
const TOKEN = 'workspace-follow-token'
const temp = mkdtempSync(join(tmpdir(), 'skillhost-ws-follow-'))
chmodSync(temp, 0o755)
let server: SharedPostgres
let dbs = 0
beforeAll(async () => {
  server = await sharedPostgres()
})
const served: Served = { spawned: [], clients: [] }
afterEach(() => stopServed(served))
afterAll(async () => {
  rmSync(temp, { recursive: true, force: true })
})

/** A skill whose script makes a binary output from a binary input, in /work. */
function binarySkill(): string {
  const root = join(temp, 'skills')
  const dir = join(root, 'bin-double')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  writeFileSync(
    join(dir, 'SKILL.md'),
    '---\nname: bin-double\ndescription: Doubles in.bin into out/result.bin.\n---\n# bin-double\n',
  )
  writeFileSync(
    join(dir, 'skillhost.yaml'),
    'scripts:\n  - name: double\n    path: scripts/double.sh\n    description: Doubles in.bin into out/result.bin.\n    interpreter: sh\n',
  )
  writeFileSync(
    join(dir, 'scripts', 'double.sh'),
    "set -eu\nmkdir -p out\ncat in.bin in.bin > out/result.bin\nprintf '\\377\\000\\357\\273\\277\\r\\n' >> out/result.bin\nln -sf /etc/hostname out/link\n",
  )
  return root
}

const INPUT = Buffer.from([0xef, 0xbb, 0xbf, 0x41, 0x00, 0xff, 0x0d, 0x0a, 0x42, 0xfe, 0x00])
const OUTPUT = Buffer.concat([
  INPUT,
  INPUT,
  Buffer.from([0xff, 0x00, 0xef, 0xbb, 0xbf, 0x0d, 0x0a]),
])

/** Two real replicas on one fresh database, each with its own state folder. */
async function replicas(
  extra: (i: number) => string[] = () => [],
): Promise<{ urls: URL[]; procs: ServeProcess[]; db: string }> {
  const db = server.createDatabase(`follow_${++dbs}`)
  const root = binarySkill()
  const { urls, procs } = await startReplicas(served, {
    ...{ count: 2, db, root, token: TOKEN },
    stateDir: (i) => join(temp, `state-${dbs}-${i}`),
    extra: (i) => ['--interpreter', 'sh=/bin/sh', ...extra(i)],
  })
  return { urls, procs, db }
}

const continueOn = (url: URL, sessionId: string) => continueSession(served, url, sessionId, TOKEN)

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as CallToolResult
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
  return result
}
const text = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')

/** The bytes of a workspace file read with `resources/read` alone. */
async function readBytes(client: Client, uri: string): Promise<Buffer> {
  const read = await client.readResource({ uri })
  const c = read.contents[0] as { blob?: string; text?: string }
  return c.blob !== undefined ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text ?? '', 'utf8')
}

describe.skipIf(!linux)(
  'workspaces follow the session (serve --http --postgres, built binary)',
  () => {
    it('a binary input and a script’s binary output made on A are read byte-exact on B after A is SIGKILLed', async () => {
      const { urls, procs, db } = await replicas()
      const [a, b] = urls as [URL, URL]
      const opened = await connectHttp(a, TOKEN)
      served.clients.push(opened.client)
      const onA = opened.client
      const sessionId = opened.transport.sessionId as string
      await call(onA, 'load_skill', { skill: 'bin-double' })
      await call(onA, 'workspace_write', {
        path: 'in.bin',
        content: INPUT.toString('base64'),
        encoding: 'base64',
      })
      const ran = await call(onA, 'run_bin_double_double', {})
      const link = ran.content.find(
        (c): c is CallToolResult['content'][number] & { type: 'resource_link' } =>
          c.type === 'resource_link' && c.name === 'out/result.bin',
      )
      if (!link) throw new Error(`no link in ${JSON.stringify(ran.content)}`)
      // The result was sent, so its files are stored: A dies now, nothing of it is asked again.
      procs[0]?.child.kill('SIGKILL')
      await procs[0]?.exited

      const onB = await continueOn(b, sessionId)
      // The link A gave is read on B: the URI follows the session.
      expect((await readBytes(onB, link.uri)).equals(OUTPUT)).toBe(true)
      const input = link.uri.replace(/out\/result\.bin$/, 'in.bin')
      expect((await readBytes(onB, input)).equals(INPUT)).toBe(true)
      const listed = await call(onB, 'workspace_list', { path: '' })
      expect(text(listed)).not.toContain('NOT here')
      expect(text(listed)).toContain('in.bin')
      // The symlink the script made followed as nothing, never as its target.
      expect(text(listed)).not.toContain('link')
      const viaTool = await call(onB, 'workspace_read', { path: 'out/result.bin' })
      const embedded = viaTool.content.find((c) => c.type === 'resource')
      expect(embedded?.type === 'resource' && 'blob' in embedded.resource).toBe(true)
      const blob = (embedded as { resource: { blob: string } }).resource.blob
      expect(Buffer.from(blob, 'base64').equals(OUTPUT)).toBe(true)
      // The script runs again on B, on the restored input.
      await call(onB, 'run_bin_double_double', {})
      expect((await readBytes(onB, link.uri)).equals(OUTPUT)).toBe(true)
      expect(procs[1]?.stderr()).toContain(`session ${sessionId} restored`)

      // The session's end removes its files and their bytes from the database.
      const pool = new pg.Pool({ connectionString: db, max: 1 })
      try {
        const n = async (t: string) =>
          Number((await pool.query(`SELECT count(*) AS n FROM skillhost.${t}`)).rows[0].n)
        expect(await n('workspace_files')).toBe(2)
        await onB.close()
        const end = await fetch(b, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': sessionId },
        })
        expect(end.status).toBe(200)
        expect(await n('workspace_files')).toBe(0)
        expect(await n('workspace_blobs')).toBe(0)
      } finally {
        await pool.end()
      }
    }, 180_000)

    it('workspace_bytes_total says where the bytes are kept: disk for every byte written, postgres for what was stored', async () => {
      const { urls } = await replicas()
      const [a] = urls as [URL, URL]
      const opened = await connectHttp(a, TOKEN)
      served.clients.push(opened.client)
      const bytes = async (): Promise<{ disk: number; postgres: number }> => {
        const res = await fetch(new URL('/metrics', a), {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
        const body = await res.text()
        const of = (store: string) =>
          Number(
            new RegExp(`^skillhost_workspace_bytes_total\\{store="${store}"\\} (\\d+)`, 'm').exec(
              body,
            )?.[1] ?? 0,
          )
        return { disk: of('disk'), postgres: of('postgres') }
      }
      const write = (path: string, content: string) =>
        call(opened.client, 'workspace_write', { path, content })
      const start = await bytes()
      await write('a.txt', 'abc')
      expect(await bytes()).toEqual({ disk: start.disk + 3, postgres: start.postgres + 3 })
      // The same bytes under another name: stored as a file of the session (its blob shared).
      await write('b.txt', 'abc')
      expect(await bytes()).toEqual({ disk: start.disk + 6, postgres: start.postgres + 6 })
      // Written again unchanged: on disk, but nothing new stored.
      await write('a.txt', 'abc')
      expect(await bytes()).toEqual({ disk: start.disk + 9, postgres: start.postgres + 6 })
    }, 180_000)

    it('a deployer’s --workspace DIR is not stored: a session restored elsewhere is told its files are not there', async () => {
      const dirs = [0, 1].map((i) => {
        const d = join(temp, `deployer-${dbs + 1}-${i}`)
        mkdirSync(d, { recursive: true })
        chmodSync(d, 0o777)
        return d
      })
      const { urls, db } = await replicas((i) => ['--workspace', dirs[i] as string])
      const [a, b] = urls as [URL, URL]
      const opened = await connectHttp(a, TOKEN)
      served.clients.push(opened.client)
      const sessionId = opened.transport.sessionId as string
      await call(opened.client, 'workspace_write', { path: 'notes.txt', content: 'draft 1' })
      expect(readdirSync(dirs[0] as string)).toContain('notes.txt')
      const onB = await continueOn(b, sessionId)
      const listed = await call(onB, 'workspace_list', { path: '' })
      expect(text(listed)).toContain('Its workspace files from before are NOT here')
      expect(readdirSync(dirs[1] as string)).toEqual([])
      const pool = new pg.Pool({ connectionString: db, max: 1 })
      try {
        const { rows } = await pool.query('SELECT count(*) AS n FROM skillhost.workspace_files')
        expect(Number(rows[0].n)).toBe(0)
      } finally {
        await pool.end()
      }
    }, 180_000)
  },
)
