import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import {
  type CallToolResult,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createSkillMcpServer,
  parseSkillResourceUri,
  SKILL_RESOURCES_PAGE,
  type SkillMcpSession,
  skillResourceUri,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3])

const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')

const sessions: SkillMcpSession[] = []
const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await Promise.all(sessions.splice(0).map((s) => s.close()))
})

async function connect(source: InMemorySkillSource) {
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  const session = createSkillMcpServer({ manager, disposeManager: true })
  sessions.push(session)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'test', version: '1.0.0' })
  let resourceChanges = 0
  let toolChanges = 0
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    resourceChanges += 1
  })
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    toolChanges += 1
  })
  await client.connect(clientSide)
  clients.push(client)
  return {
    client,
    resourceChanges: () => resourceChanges,
    toolChanges: () => toolChanges,
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r))
  expect(check()).toBe(true)
}

function pdfSource(): InMemorySkillSource {
  return new InMemorySkillSource({
    skills: [
      {
        name: 'pdf',
        description: 'Fill PDF forms.',
        body: '# PDF\n\nSee forms.md.',
        files: {
          'forms.md': '# Forms\n\nFill field A.\n',
          'logo.png': PNG,
          'odd name #1.txt': 'spaces and a hash\n',
          'scripts/fill.py': 'print(1)\n',
        },
      },
    ],
  })
}

describe('MCP resources for loaded skill files (real client, in-memory transport)', () => {
  it('lists and reads a loaded skill’s files, announces load and unload, and refuses reads after unload', async () => {
    const { client, resourceChanges, toolChanges } = await connect(pdfSource())
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true })
    expect((await client.listResources()).resources).toEqual([])

    const loaded = await client.callTool({ name: 'load_skill', arguments: { skill: 'pdf' } })
    expect(loaded.isError).toBeFalsy()
    await until(() => resourceChanges() === 1)
    await until(() => toolChanges() >= 1)
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_skill_file')

    const { resources, nextCursor } = await client.listResources()
    expect(nextCursor).toBeUndefined()
    expect(resources.map((r) => r.uri)).toEqual([
      'skill://pdf/forms.md',
      'skill://pdf/logo.png',
      'skill://pdf/odd%20name%20%231.txt',
      'skill://pdf/scripts/fill.py',
    ])
    expect(resources[0]).toMatchObject({ name: 'forms.md', mimeType: 'text/markdown', size: 23 })
    expect(resources[2]?.mimeType).toBe('text/plain')

    const forms = await client.readResource({ uri: 'skill://pdf/forms.md' })
    expect(forms.contents).toEqual([
      {
        uri: 'skill://pdf/forms.md',
        mimeType: 'text/markdown',
        text: '# Forms\n\nFill field A.\n',
      },
    ])
    const odd = await client.readResource({ uri: resources[2]?.uri as string })
    expect(odd.contents[0]).toMatchObject({ mimeType: 'text/plain', text: 'spaces and a hash\n' })
    // Binary files come as a base64 blob with their type.
    const logo = await client.readResource({ uri: 'skill://pdf/logo.png' })
    expect(logo.contents[0]).toMatchObject({ mimeType: 'image/png' })
    const blob = (logo.contents[0] as { blob: string }).blob
    expect(new Uint8Array(Buffer.from(blob, 'base64'))).toEqual(PNG)

    // Escaping and malformed URIs are refused, without echoing host paths.
    await expect(client.readResource({ uri: 'skill://pdf/..%2F..%2Fetc/passwd' })).rejects.toThrow(
      /E_SKILL_SOURCE_PATH_REJECTED/,
    )
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(
      /Not a skill resource URI/,
    )
    await expect(client.readResource({ uri: 'skill://pdf/missing.md' })).rejects.toThrow(
      /E_SKILL_NOT_FOUND/,
    )

    const unloaded = await client.callTool({ name: 'unload_skill', arguments: { skill: 'pdf' } })
    expect(text(unloaded)).toContain('"id": "pdf"')
    await until(() => resourceChanges() === 2)
    expect((await client.listResources()).resources).toEqual([])
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('read_skill_file')
    const after = client.readResource({ uri: 'skill://pdf/forms.md' })
    await expect(after).rejects.toThrow(/E_SKILL_NOT_LOADED: .*load_skill/)
    // What was read before is the client's: it stays as it was.
    expect(forms.contents[0]).toMatchObject({ text: '# Forms\n\nFill field A.\n' })
  })

  it('pages resources/list with a cursor', async () => {
    const files: Record<string, string> = {}
    const count = SKILL_RESOURCES_PAGE * 2 + 7
    for (let i = 0; i < count; i++) files[`data/${String(i).padStart(5, '0')}.txt`] = 'x'
    const source = new InMemorySkillSource({
      skills: [
        { name: 'big', description: 'Big.', body: '# Big', files },
        { name: 'small', description: 'Small.', body: '# Small', files: { 'a.md': 'a' } },
      ],
    })
    const { client } = await connect(source)
    await client.callTool({ name: 'load_skill', arguments: { skill: 'big' } })
    await client.callTool({ name: 'load_skill', arguments: { skill: 'small' } })
    const uris: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor })
      uris.push(...page.resources.map((r) => r.uri))
      cursor = page.nextCursor
      pages += 1
    } while (cursor !== undefined)
    expect(pages).toBe(3)
    expect(uris).toHaveLength(count + 1)
    expect(new Set(uris).size).toBe(count + 1)
    expect(uris.at(-1)).toBe('skill://small/a.md')
    await expect(client.listResources({ cursor: 'bogus' })).rejects.toThrow(/cursor/)
  })

  it('round-trips skill resource URIs', () => {
    const uri = skillResourceUri('pdf', 'ref/a b/#c?.md')
    expect(uri).toBe('skill://pdf/ref/a%20b/%23c%3F.md')
    expect(parseSkillResourceUri(uri)).toEqual({ id: 'pdf', path: 'ref/a b/#c?.md' })
    for (const bad of [
      'skill://',
      'skill://pdf',
      'skill://pdf/',
      'skill:///x',
      'skill://p/%E0%A4%A',
    ])
      expect(() => parseSkillResourceUri(bad)).toThrow(/Not a skill resource URI/)
  })
})
