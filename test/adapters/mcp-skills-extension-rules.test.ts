import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createSkillMcpServer,
  GetSkillResultSchema,
  ListSkillsResultSchema,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager, type SkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource } from '../../src/sources/index.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** Skills that keep the Agent Skills rules, break them, or ship a file no client can read back. */
const SKILLS: Record<string, { frontmatter: string; files?: Record<string, string> }> = {
  fine: { frontmatter: 'name: fine\ndescription: Keeps every rule.\nmetadata:\n  a: "1"' },
  'Upper-Case': { frontmatter: 'name: Upper-Case\ndescription: Uppercase name.' },
  snake_case: { frontmatter: 'name: snake_case\ndescription: Underscore name.' },
  'long-desc': { frontmatter: `name: long-desc\ndescription: ${'d'.repeat(1025)}` },
  'meta-num': {
    frontmatter: 'name: meta-num\ndescription: Numeric metadata.\nmetadata:\n  count: 3',
  },
  devices: { frontmatter: 'name: devices\ndescription: Ships con.md.', files: { 'con.md': 'x\n' } },
  backslash: {
    frontmatter: 'name: backslash\ndescription: Ships a backslash name.',
    files: { 'a\\b.txt': 'x\n' },
  },
}
const RULE_BREAKERS = ['Upper-Case', 'long-desc', 'meta-num', 'snake_case']
const UNREADABLE = ['devices']

async function served(lenient: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'skills-rules-'))
  for (const [id, s] of Object.entries(SKILLS)) {
    mkdirSync(join(root, id))
    writeFileSync(join(root, id, 'SKILL.md'), `---\n${s.frontmatter}\n---\n\n# ${id}\n`)
    for (const [path, text] of Object.entries(s.files ?? {}))
      writeFileSync(join(root, id, path), text)
  }
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: root })],
    gate: async () => undefined,
  })
  const leftOut: { id: string; reason: string }[] = []
  const session = createSkillMcpServer({
    manager,
    disposeManager: true,
    skillsExtension: { lenient, onLeftOut: (e) => leftOut.push(e) },
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'rules-test', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    await client.close()
    await session.close()
    rmSync(root, { recursive: true, force: true })
  })
  return { client, manager, leftOut }
}

async function listedNames(client: Client): Promise<string[]> {
  const page = await client.request({ method: 'skills/list', params: {} }, ListSkillsResultSchema)
  expect(page.nextCursor).toBeUndefined()
  return page.skills.map((s) => String(s.frontmatter.name)).sort()
}

const get = (client: Client, id: string) =>
  client.request(
    { method: 'skills/get', params: { uri: `skill://${encodeURIComponent(id)}/SKILL.md` } },
    GetSkillResultSchema,
  )

/** Whether `load_skill` takes the skill: what the extension must agree with for unreadable files. */
async function loads(manager: SkillManager, id: string): Promise<boolean> {
  return manager.load(id, manager.createTurnContext()).then(
    () => true,
    () => false,
  )
}

describe('the Skills Extension serves what the Agent Skills rules allow, as the reference server', () => {
  it('leaves out rule breakers and unreadable skills, each told once with a reason', async () => {
    const { client, manager, leftOut } = await served(false)
    const catalogIds = manager.catalog().entries.map((e) => e.id)
    for (const id of [...RULE_BREAKERS, ...UNREADABLE]) expect(catalogIds).toContain(id)
    expect(await listedNames(client)).toEqual(['backslash', 'fine'])
    await listedNames(client)
    expect(leftOut.map((e) => e.id).sort()).toEqual([...UNREADABLE, ...RULE_BREAKERS].sort())
    const why = Object.fromEntries(leftOut.map((e) => [e.id, e.reason]))
    expect(why['Upper-Case']).toMatch(/uppercase/)
    expect(why.snake_case).toMatch(/lowercase letters, digits/)
    expect(why['long-desc']).toMatch(/longer than 1024/)
    expect(why['meta-num']).toMatch(/metadata value count is not a string/)
    expect(why.devices).toMatch(/cannot be served \(con\.md\)/)
    for (const id of [...RULE_BREAKERS, ...UNREADABLE]) {
      const err = await get(client, id).catch((e: unknown) => e)
      expect(err, id).toBeInstanceOf(McpError)
      expect((err as McpError).code).toBe(-32602)
    }
    await expect(get(client, 'fine')).resolves.toHaveProperty('skill.frontmatter.name', 'fine')
  })

  it('serves rule breakers when the deployer is lenient, never an unreadable file', async () => {
    const { client, leftOut } = await served(true)
    expect(await listedNames(client)).toEqual(['backslash', 'fine', ...RULE_BREAKERS].sort())
    expect(leftOut.map((e) => e.id).sort()).toEqual(UNREADABLE)
  })

  it('serves a skill with a backslash file name without that file, as load_skill does', async () => {
    const { client, manager } = await served(false)
    expect(await loads(manager, 'fine')).toBe(true)
    expect(await loads(manager, 'backslash')).toBe(true)
    // Served without the file no reader could name; every listed file reads back.
    const { skill } = await get(client, 'backslash')
    const uris = (skill.resources as { uri: string }[]).map((r) => r.uri)
    expect(uris).toEqual(['skill://backslash/SKILL.md'])
    for (const uri of uris) await expect(client.readResource({ uri })).resolves.toBeDefined()
  })
})
