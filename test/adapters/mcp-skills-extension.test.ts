import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import {
  type CallToolResult,
  McpError,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import {
  createSkillMcpServer,
  GetSkillResultSchema,
  ListSkillsResultSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_EXTENSION_LIMITS,
  type SkillEntry,
  type SkillMcpSession,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255])

let root: string
const sessions: SkillMcpSession[] = []
const clients: Client[] = []
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'skills-ext-'))
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await Promise.all(sessions.splice(0).map((s) => s.close()))
  rmSync(root, { recursive: true, force: true })
})

function skill(name: string, frontmatter: string, files: Record<string, string | Uint8Array> = {}) {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n\n# ${name}\n\nDo the thing.\n`)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
}

/** Seven skills: five plain, one kept from the model, one beyond the extension's file limit. */
function catalog(): void {
  skill(
    'alpha',
    'name: alpha\ndescription: First skill.\nlicense: MIT\nmetadata:\n  version: "2.1"\nx-custom:\n  - 1\n  - two',
    {
      'reference/guide.md': '# Guide\n',
      'assets/logo.png': PNG,
      'scripts/run.py': 'print("hi")\n',
    },
  )
  for (const name of ['bravo', 'charlie', 'delta', 'echo'])
    skill(name, `name: ${name}\ndescription: Skill ${name}.`, { 'notes.txt': `${name}\n` })
  skill('hidden', 'name: hidden\ndescription: Host only.\ndisable-model-invocation: true')
  const many: Record<string, string> = {}
  for (let i = 0; i < SKILLS_EXTENSION_LIMITS.maxFiles; i++) many[`parts/p${i}.txt`] = `${i}\n`
  skill('big', 'name: big\ndescription: Too many files for the extension.', many)
}

async function connect(pageSize = 2) {
  const source = new FileSystemSkillSource({ roots: root })
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  const session = createSkillMcpServer({
    manager,
    disposeManager: true,
    skillsExtension: { pageSize },
  })
  sessions.push(session)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'test', version: '1.0.0' })
  let resourceChanges = 0
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    resourceChanges += 1
  })
  await client.connect(clientSide)
  clients.push(client)
  return { client, resourceChanges: () => resourceChanges }
}

/** Every page of skills/list, and how many pages it took. */
async function listAll(client: Client): Promise<{ skills: SkillEntry[]; pages: number }> {
  const skills: SkillEntry[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      ListSkillsResultSchema,
    )
    expect(page).toMatchObject({ resultType: 'complete', cacheScope: 'private' })
    expect(typeof page.ttlMs).toBe('number')
    skills.push(...(page.skills as SkillEntry[]))
    cursor = page.nextCursor
    pages += 1
  } while (cursor !== undefined)
  return { skills, pages }
}

/** The raw bytes `resources/read` returned for one file. */
async function readBytes(client: Client, uri: string): Promise<Uint8Array> {
  const { contents } = await client.readResource({ uri })
  expect(contents).toHaveLength(1)
  const c = contents[0]!
  return 'blob' in c && typeof c.blob === 'string'
    ? new Uint8Array(Buffer.from(c.blob, 'base64'))
    : new TextEncoder().encode((c as { text: string }).text)
}

const sha256 = (bytes: Uint8Array): string =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p
    return undefined
  } catch (err) {
    expect(err).toBeInstanceOf(McpError)
    return (err as McpError).code
  }
}

const listedIds = (r: unknown): string[] =>
  (
    JSON.parse(
      ((r as CallToolResult).content[0] as { text: string }).text.replace(/^[^{[]*/, ''),
    ) as { skills: { id: string }[] }
  ).skills.map((s) => s.id)

describe('MCP Skills Extension (server)', () => {
  it('declares the extension next to resources', async () => {
    catalog()
    const { client } = await connect()
    const caps = client.getServerCapabilities()
    expect(caps?.resources).toBeDefined()
    expect(caps?.extensions).toEqual({ [SKILLS_EXTENSION_ID]: {} })
  })

  it('lists every model-visible skill over pages, and every listed file reads back to its digest', async () => {
    catalog()
    const { client } = await connect(2)
    const { skills, pages } = await listAll(client)
    expect(pages).toBeGreaterThan(1)
    const ids = skills.map((s) => s.frontmatter.name)
    // The hidden skill is not the model's; `big` is beyond the extension's limits.
    expect(ids).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo'])

    // The same ids as the lifecycle tool's view, less what the extension's limits leave out.
    const tool = await client.callTool({ name: 'list_skills', arguments: {} })
    expect(listedIds(tool).filter((id) => id !== 'big')).toEqual(ids)

    for (const entry of skills) {
      const name = entry.frontmatter.name as string
      expect(entry.uri).toBe(`skill://${name}/SKILL.md`)
      const resources = entry.resources as Exclude<SkillEntry['resources'], 'dynamic'>
      expect(resources.some((r) => r.uri === entry.uri)).toBe(true)
      for (const r of resources) {
        const bytes = await readBytes(client, r.uri)
        expect(bytes.byteLength).toBe(r.size)
        expect(sha256(bytes)).toBe(r.digest)
        // And the digest is that of the file on disk.
        const onDisk = readFileSync(join(root, name, r.uri.slice(`skill://${name}/`.length)))
        expect(r.digest).toBe(sha256(onDisk))
      }
    }
    const alpha = skills[0]!
    expect((alpha.resources as readonly { uri: string }[]).map((r) => r.uri)).toEqual([
      'skill://alpha/SKILL.md',
      'skill://alpha/assets/logo.png',
      'skill://alpha/reference/guide.md',
      'skill://alpha/scripts/run.py',
    ])
    // The frontmatter verbatim: every key the author wrote, as YAML reads it.
    const text = readFileSync(join(root, 'alpha', 'SKILL.md'), 'utf8')
    expect(alpha.frontmatter).toEqual(parseYaml(text.split('---\n')[1]!))
    expect(alpha.frontmatter['x-custom']).toEqual([1, 'two'])
  })

  it('gets one skill by its SKILL.md URI, the same entry as the listing', async () => {
    catalog()
    const { client } = await connect(50)
    const { skills } = await listAll(client)
    const got = await client.request(
      { method: 'skills/get', params: { uri: 'skill://charlie/SKILL.md' } },
      GetSkillResultSchema,
    )
    expect(got).toMatchObject({ resultType: 'complete', cacheScope: 'private' })
    expect(got.skill).toEqual(skills.find((s) => s.uri === 'skill://charlie/SKILL.md'))
  })

  it('answers hostile and unknown URIs with -32602', async () => {
    catalog()
    const { client } = await connect()
    const get = (params: Record<string, unknown>) =>
      client.request({ method: 'skills/get', params }, GetSkillResultSchema)
    expect(await codeOf(get({ uri: 'skill://nope/SKILL.md' }))).toBe(-32602)
    expect(await codeOf(get({ uri: 'skill://alpha/reference/guide.md' }))).toBe(-32602)
    expect(await codeOf(get({ uri: 'skill://hidden/SKILL.md' }))).toBe(-32602)
    expect(await codeOf(get({ uri: 'file:///etc/passwd' }))).toBe(-32602)
    expect(await codeOf(get({}))).toBe(-32602)
    // Beyond the extension's 512 files: not served, and the message says why.
    await expect(get({ uri: 'skill://big/SKILL.md' })).rejects.toThrow(/513 files/)
    expect(await codeOf(get({ uri: 'skill://big/SKILL.md' }))).toBe(-32602)
    const list = client.request(
      { method: 'skills/list', params: { cursor: 'x' } },
      ListSkillsResultSchema,
    )
    expect(await codeOf(list)).toBe(-32602)

    const read = (uri: string) => client.readResource({ uri })
    expect(await codeOf(read('skill://alpha/..%2F..%2Fetc%2Fpasswd'))).toBe(-32602)
    expect(await codeOf(read('skill://alpha/%2E%2E/bravo/SKILL.md'))).toBe(-32602)
    expect(await codeOf(read('skill://alpha/missing.md'))).toBe(-32602)
    expect(await codeOf(read('skill://nope/SKILL.md'))).toBe(-32602)
    // Neither a model-hidden nor an oversize skill is readable unless it is loaded.
    expect(await codeOf(read('skill://hidden/SKILL.md'))).toBe(-32602)
    expect(await codeOf(read('skill://big/parts/p1.txt'))).toBe(-32602)
    await expect(read('skill://alpha/..%2F..%2Fetc%2Fpasswd')).rejects.not.toThrow(
      new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    )
  })

  it('tells the client when the catalog changes, and lists the new skill', async () => {
    skill('alpha', 'name: alpha\ndescription: First.')
    const { client, resourceChanges } = await connect()
    expect((await listAll(client)).skills.map((s) => s.frontmatter.name)).toEqual(['alpha'])
    skill('zulu', 'name: zulu\ndescription: Arrived later.')
    await client.callTool({ name: 'refresh_skills', arguments: {} })
    for (let i = 0; i < 200 && resourceChanges() === 0; i++)
      await new Promise((r) => setImmediate(r))
    expect(resourceChanges()).toBeGreaterThan(0)
    expect((await listAll(client)).skills.map((s) => s.frontmatter.name)).toEqual(['alpha', 'zulu'])
  })

  it('can be turned off: no capability, no skills/list', async () => {
    skill('alpha', 'name: alpha\ndescription: First.')
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => undefined,
    })
    const session = createSkillMcpServer({ manager, disposeManager: true, skillsExtension: false })
    sessions.push(session)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(clientSide)
    clients.push(client)
    expect(client.getServerCapabilities()?.extensions).toBeUndefined()
    const list = client.request({ method: 'skills/list', params: {} }, ListSkillsResultSchema)
    expect(await codeOf(list)).toBe(-32601)
  })
})
