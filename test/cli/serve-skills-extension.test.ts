import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  GetSkillResultSchema,
  ListSkillsResultSchema,
  SKILLS_EXTENSION_ID,
  type SkillEntry,
  skillResourceUri,
} from '../../src/adapters/mcp/index.js'
import { parseSkillLock } from '../../src/sources/index.js'
import { connectHttp, stopServed } from '../helpers/serve-clients.js'
import { type SharedPostgres, sharedPostgres } from '../helpers/shared-postgres.js'
import { listeningUrl, ROOT, type ServeProcess, spawnServe } from '../helpers/spawn-serve.js'

// The Skills Extension through the real `skillhost serve` binary, over stdio,
// over HTTP, and over HTTP with shared sessions in a real PostgreSQL: a client
// written with the official SDK lists every skill, reads every listed file and
// checks every digest against the bytes on disk.

const TOKEN = 'skills-extension-token'
const work = mkdtempSync(join(tmpdir(), 'skillhost-skills-ext-'))
const root = join(work, 'skills')
cpSync(join(ROOT, 'examples/skills'), root, { recursive: true })
let pgServer: SharedPostgres | undefined
afterAll(async () => {
  rmSync(work, { recursive: true, force: true })
})

const clients: Client[] = []
const spawned: ServeProcess[] = []
afterEach(() => stopServed({ spawned, clients }))

const sha256 = (bytes: Uint8Array): string =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`

/** Lists every page, reads every listed file, checks size and digest against the read and the disk; returns the ids. */
async function verifyCatalog(client: Client): Promise<string[]> {
  return (await verifiedEntries(client)).map((s) => s.frontmatter.name as string)
}

/** `verifyCatalog`, returning the entries themselves. */
async function verifiedEntries(client: Client): Promise<SkillEntry[]> {
  expect(client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION_ID]).toEqual({})
  const skills: SkillEntry[] = []
  let cursor: string | undefined
  do {
    const page = await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      ListSkillsResultSchema,
    )
    skills.push(...(page.skills as SkillEntry[]))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  for (const entry of skills) {
    const name = entry.frontmatter.name as string
    const got = await client.request(
      { method: 'skills/get', params: { uri: entry.uri } },
      GetSkillResultSchema,
    )
    expect(got.skill).toEqual(entry)
    for (const r of entry.resources as readonly { uri: string; digest: string; size: number }[]) {
      const { contents } = await client.readResource({ uri: r.uri })
      const c = contents[0]!
      const bytes =
        'blob' in c && typeof c.blob === 'string'
          ? new Uint8Array(Buffer.from(c.blob, 'base64'))
          : new TextEncoder().encode((c as { text: string }).text)
      expect(bytes.byteLength).toBe(r.size)
      expect(sha256(bytes)).toBe(r.digest)
      const rel = decodeURIComponent(r.uri.slice(`skill://${name}/`.length))
      expect(sha256(readFileSync(join(root, name, rel)))).toBe(r.digest)
    }
  }
  const ids = skills.map((s) => s.frontmatter.name as string)
  // The lifecycle tools' view: the same skills.
  const listed = (await client.callTool({ name: 'list_skills', arguments: {} })) as CallToolResult
  const text = listed.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
  for (const id of ids) expect(text).toContain(`"${id}"`)
  return skills
}

const EXAMPLES = ['commit-messages', 'form-fill', 'json-tools', 'unit-convert', 'word-count']

describe('skillhost serve: the MCP Skills Extension', () => {
  it('over stdio', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/cli/main.js', 'serve', '--no-scripts', '--state-dir', join(work, 's1'), root],
      cwd: ROOT,
      stderr: 'pipe',
    })
    const client = new Client({ name: 'skills-ext-stdio', version: '1.0.0' })
    await client.connect(transport)
    clients.push(client)
    const entries = await verifiedEntries(client)
    expect(entries.map((e) => e.frontmatter.name).sort()).toEqual(EXAMPLES)

    // One digest model: `skillhost lock` records exactly the files and digests skills/list serves.
    const lockPath = join(work, 'skills.lock.json')
    execFileSync(process.execPath, ['dist/cli/main.js', 'lock', '--out', lockPath, root], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: work },
    })
    const lock = parseSkillLock(readFileSync(lockPath))
    expect([...lock.skills.keys()].sort()).toEqual(EXAMPLES)
    for (const entry of entries) {
      const id = entry.frontmatter.name as string
      const pinned = (lock.skills.get(id)?.files ?? []).map((f) => ({
        uri: skillResourceUri(id, f.path),
        digest: f.digest,
        size: f.size,
      }))
      expect(entry.resources).toEqual(pinned)
    }
  })

  it('over HTTP', async () => {
    const served = spawnServe([
      '--http',
      '0',
      '--token',
      TOKEN,
      '--no-scripts',
      '--state-dir',
      join(work, 's2'),
      root,
    ])
    spawned.push(served)
    const { client } = await connectHttp(await listeningUrl(served), TOKEN)
    clients.push(client)
    expect((await verifyCatalog(client)).sort()).toEqual(EXAMPLES)
  })

  describe('with --postgres', () => {
    beforeAll(async () => {
      pgServer = await sharedPostgres()
    })

    it('over HTTP with shared sessions', async () => {
      const db = pgServer!.createDatabase('skills_extension')
      const served = spawnServe([
        '--http',
        '0',
        '--token',
        TOKEN,
        '--postgres',
        db,
        '--no-scripts',
        '--state-dir',
        join(work, 's3'),
        root,
      ])
      spawned.push(served)
      const { client } = await connectHttp(await listeningUrl(served), TOKEN)
      clients.push(client)
      expect((await verifyCatalog(client)).sort()).toEqual(EXAMPLES)
    })
  })
})
