import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SKILL_RESOURCES_PAGE, WORKSPACE_RESOURCES_PAGE } from '../../src/adapters/mcp/index.js'
import { WORKSPACE_EMBED_MAX_BYTES } from '../../src/common/workspace-files-out.js'
import type { Rig } from '../helpers/sandbox.js'
import { onLinux } from '../helpers/sandbox.js'
import {
  contentBytes,
  listAll,
  type WorkspaceSession,
  workspaceRig,
  workspaceSession,
} from '../helpers/workspace-mcp.js'

// Issue 36 item 1: a session's workspace files over MCP, byte-exact, listed
// and paged, announced when they change. The attacks are in
// test/escape/workspace-resources.test.ts; the built binary over HTTP and
// stdio in test/cli/serve-workspace-files.test.ts.

/** Bytes no text path keeps: a BOM, NUL, 0xFF, CRLF, Latin-1, nothing at all. */
const FILES: Record<string, Buffer> = {
  'bom.txt': Buffer.from('\uFEFFhéllo\r\nworld\r\n', 'utf8'),
  'data/zeros.bin': Buffer.from([0x00, 0xff, 0x00, 0xfe, 0x0d, 0x0a]),
  'crlf.csv': Buffer.from('a,b\r\n1,2\r\n'),
  'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
  'empty.txt': Buffer.alloc(0),
  'zero-in-text.txt': Buffer.from('a\u0000b'),
  'dir with space/ü%#?.md': Buffer.from('# odd name\n'),
}

describe.skipIf(!onLinux)('workspace files over MCP (in-process, real SDK client)', () => {
  let rig: Rig
  let s: WorkspaceSession
  beforeAll(async () => {
    rig = await workspaceRig()
    s = await workspaceSession(rig)
  })
  afterAll(async () => {
    await s?.close()
    await rig?.cleanup()
  })

  it('workspace_write links and embeds each file; resources/read returns exactly its bytes; list_changed follows each write', async () => {
    for (const [path, bytes] of Object.entries(FILES)) {
      const before = s.changes()
      const wrote = await s.call('workspace_write', {
        path,
        content: bytes.toString('base64'),
        encoding: 'base64',
      })
      expect(wrote.isError, JSON.stringify(wrote.content)).toBeFalsy()
      const link = wrote.content.find((b) => b.type === 'resource_link')
      expect(link).toMatchObject({ name: path, size: bytes.length, title: `/work/${path}` })
      if (link?.type !== 'resource_link') throw new Error('no link')
      const embedded = wrote.content.find((b) => b.type === 'resource')
      if (embedded?.type !== 'resource') throw new Error('not embedded')
      expect(embedded.resource.uri).toBe(link.uri)
      expect(embedded.annotations).toEqual({ audience: ['user'] })
      expect(contentBytes(embedded.resource).equals(bytes)).toBe(true)
      const read = await s.client.readResource({ uri: link.uri })
      expect(contentBytes(read.contents[0]).equals(bytes), path).toBe(true)
      await expect.poll(() => s.changes()).toBeGreaterThan(before)
    }
  })

  it("the host's own writes are announced too: manager.workspace.put and remove send list_changed", async () => {
    // Resolves once the client has received a notification after `seen`; the test's timeout bounds it.
    const next = async (seen: number) => {
      while (s.changes() <= seen) await new Promise((r) => setTimeout(r, 5))
    }
    const before = s.changes()
    await s.manager.workspace?.put('host/given.bin', Buffer.from([0xef, 0xbb, 0xbf, 0x00, 0xff]))
    await next(before)
    const { uris } = await listAll(s.client)
    expect(uris.some((u) => u.endsWith('/host/given.bin'))).toBe(true)
    const afterPut = s.changes()
    await s.manager.workspace?.remove('host/given.bin')
    await next(afterPut)
    expect((await listAll(s.client)).uris.some((u) => u.endsWith('/host/given.bin'))).toBe(false)
  })

  it('text only for exact UTF-8 text (a BOM kept), a blob otherwise, with the media type', async () => {
    const uriOf = async (path: string) => {
      const r = await s.call('workspace_read', { path })
      const link = r.content.find((b) => b.type === 'resource_link')
      if (link?.type !== 'resource_link') throw new Error('no link')
      return link.uri
    }
    const bom = (await s.client.readResource({ uri: await uriOf('bom.txt') })).contents[0]
    expect(bom).toMatchObject({ mimeType: 'text/plain', text: '\uFEFFhéllo\r\nworld\r\n' })
    const nul = (await s.client.readResource({ uri: await uriOf('data/zeros.bin') })).contents[0]
    expect(nul?.mimeType).toBe('application/octet-stream')
    expect(nul && 'blob' in nul).toBe(true)
    const latin1 = (await s.client.readResource({ uri: await uriOf('latin1.txt') })).contents[0]
    expect(latin1 && 'blob' in latin1).toBe(true)
    const nulText = (await s.client.readResource({ uri: await uriOf('zero-in-text.txt') }))
      .contents[0]
    expect(nulText && 'blob' in nulText).toBe(true)
    // Each path segment is percent-encoded, one spelling per file.
    const odd = await uriOf('dir with space/ü%#?.md')
    expect(odd).toMatch(/\/dir%20with%20space\/%C3%BC%25%23%3F\.md$/)
  })

  it('a file up to the embedding bound is embedded; one byte more is linked only', async () => {
    const at = Buffer.alloc(WORKSPACE_EMBED_MAX_BYTES, 0xff)
    const over = Buffer.alloc(WORKSPACE_EMBED_MAX_BYTES + 1, 0xff)
    for (const [path, bytes, embedded] of [
      ['at.bin', at, true],
      ['over.bin', over, false],
    ] as const) {
      const wrote = await s.call('workspace_write', {
        path,
        content: bytes.toString('base64'),
        encoding: 'base64',
      })
      expect(wrote.content.some((b) => b.type === 'resource')).toBe(embedded)
      const link = wrote.content.find((b) => b.type === 'resource_link')
      if (link?.type !== 'resource_link') throw new Error('no link')
      expect(link.size).toBe(bytes.length)
      const read = await s.client.readResource({ uri: link.uri })
      expect(contentBytes(read.contents[0]).equals(bytes)).toBe(true)
    }
  })

  it('resources/list pages the skill files, then the workspace files (regular files only), each once', async () => {
    await s.call('load_skill', { skill: 'reports' })
    const many = WORKSPACE_RESOURCES_PAGE * 2 + 7
    for (let i = 0; i < many; i++) await s.manager.workspace?.put(`many/f${i}.txt`, `${i}`)
    const { uris, pages } = await listAll(s.client)
    expect(new Set(uris).size).toBe(uris.length)
    expect(Math.max(...pages)).toBeLessThanOrEqual(
      Math.max(SKILL_RESOURCES_PAGE, WORKSPACE_RESOURCES_PAGE),
    )
    const skill = uris.filter((u) => u.startsWith('skill://'))
    const workspace = uris.filter((u) => u.startsWith('skillhost-workspace://'))
    expect(skill.length).toBeGreaterThan(0)
    // Skill files first, then the workspace's.
    expect(uris.slice(0, skill.length)).toEqual(skill)
    expect(workspace.length).toBe(many + Object.keys(FILES).length + 2)
    // skill:// resources still read as before.
    const body = await s.client.readResource({ uri: skill[0] as string })
    expect(body.contents).toHaveLength(1)
    await expect(s.client.listResources({ cursor: 'w:x' })).rejects.toThrow(/-32602/)
  })

  it('a session without scripts has no workspace resources and no extra page', async () => {
    const { createSkillManager } = await import('../../src/manager/index.js')
    const { createSkillMcpServer } = await import('../../src/adapters/mcp/index.js')
    const { memorySource } = await import('../helpers/manager-fixtures.js')
    const manager = await createSkillManager({
      sources: [memorySource([])],
      gate: async () => undefined,
    })
    const session = createSkillMcpServer({ manager, disposeManager: true })
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js')
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const [c, sv] = InMemoryTransport.createLinkedPair()
    await session.server.connect(sv)
    const client = new Client({ name: 'no-scripts', version: '1' })
    await client.connect(c)
    expect(await client.listResources()).toEqual({ resources: [] })
    await client.close()
    await session.close()
  })
})
