import { createHash } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { describe, expect, it } from 'vitest'
import {
  ListSkillsResultSchema,
  McpSkillSource,
  type SkillEntry,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource, streamToBytes } from '../../src/sources/index.js'
import { cleanupAfterEach, connectInMemory, filesFolder } from '../helpers/mcp-in-memory.js'

const cleanups = cleanupAfterEach()

const BOM = [0xef, 0xbb, 0xbf]
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  new Uint8Array(
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))),
  )

/** Files whose bytes a decoder could change: BOM, CRLF, Latin-1, empty, all four. */
const FILES: Record<string, Uint8Array> = {
  'SKILL.md': bytes(
    BOM,
    '---\r\nname: odd-bytes\r\ndescription: Files a decoder could change.\r\n---\r\n\r\n# Odd\r\n',
  ),
  'reference/bom.md': bytes(BOM, '# Starts with a BOM\n'),
  'reference/crlf.txt': bytes('one\r\ntwo\r\n'),
  'reference/latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'reference/latin1.md': new Uint8Array([0x23, 0x20, 0xc0, 0xe9, 0x0a]),
  'reference/empty.md': new Uint8Array(0),
  'reference/empty.txt': new Uint8Array(0),
  'reference/bom-only.txt': bytes(BOM),
}

const digest = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`

/** The official SDK client connected to skillhost's server over a folder holding FILES. */
async function served(files = FILES, id = 'odd-bytes'): Promise<Client> {
  const inSkill = Object.fromEntries(Object.entries(files).map(([p, c]) => [`${id}/${p}`, c]))
  const root = filesFolder(cleanups, 'skills-bytes-', inSkill)
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: root })],
    gate: async () => undefined,
  })
  return (await connectInMemory(cleanups, { manager, disposeManager: true }, 'bytes-test')).client
}

/** The bytes one `resources/read` content item carries, as a verifying client takes them. */
function received(c: { text?: unknown; blob?: unknown }): Uint8Array {
  return typeof c.blob === 'string'
    ? new Uint8Array(Buffer.from(c.blob, 'base64'))
    : new TextEncoder().encode(c.text as string)
}

describe('the Skills Extension serves exactly the bytes it lists', () => {
  it('resources/read returns BOM, CRLF, Latin-1 and empty files byte for byte', async () => {
    const client = await served()
    const list = await client.request({ method: 'skills/list', params: {} }, ListSkillsResultSchema)
    const entry = list.skills.find((s) => s.frontmatter.name === 'odd-bytes') as SkillEntry
    expect(entry).toBeDefined()
    const resources = entry.resources as Exclude<SkillEntry['resources'], 'dynamic'>
    expect(resources.map((r) => r.uri.replace('skill://odd-bytes/', '')).sort()).toEqual(
      Object.keys(FILES).sort(),
    )
    for (const r of resources) {
      const path = r.uri.replace('skill://odd-bytes/', '')
      const want = FILES[path] as Uint8Array
      expect(r.size, path).toBe(want.byteLength)
      expect(r.digest, path).toBe(digest(want))
      const { contents } = await client.readResource({ uri: r.uri })
      const got = received(contents[0] as { text?: unknown; blob?: unknown })
      expect(Buffer.from(got).equals(Buffer.from(want)), path).toBe(true)
      expect(digest(got), path).toBe(r.digest)
      // Latin-1 is not UTF-8: it can only travel as a blob.
      if (path.startsWith('reference/latin1')) expect(contents[0]).toHaveProperty('blob')
    }
  })

  it('McpSkillSource reads the folder back and every digest verifies', async () => {
    const client = await served()
    const source = new McpSkillSource({ client, id: 'remote', watch: false })
    const manager = await createSkillManager({
      sources: [source],
      gate: async () => undefined,
      defaultChannel: 'inline',
    })
    cleanups.push(() => manager.dispose())
    const ref = manager.catalog().entries.find((e) => e.id === 'odd-bytes')
    expect(ref, JSON.stringify(manager.catalog())).toBeDefined()
    for (const [path, want] of Object.entries(FILES)) {
      const stream = await source.read({ id: 'odd-bytes', version: ref!.version }, path)
      const got = await streamToBytes(stream)
      expect(Buffer.from(got).equals(Buffer.from(want)), path).toBe(true)
    }
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('odd-bytes', ctx)
    expect(loaded.id).toBe('odd-bytes')
  })

  it('keeps integers beyond 2^53 exact in frontmatter: their source text, verified by McpSkillSource', async () => {
    const big =
      '---\nname: big-ints\ndescription: Exact integers.\nbuild: 12345678901234567890\nsmall: 42\nmetadata:\n  id: "1"\nnested:\n  neg: -9007199254740993\n---\n# Big\n'
    const client = await served({ 'SKILL.md': new TextEncoder().encode(big) }, 'big-ints')
    const list = await client.request({ method: 'skills/list', params: {} }, ListSkillsResultSchema)
    const entry = list.skills.find((s) => s.frontmatter.name === 'big-ints')
    expect(entry?.frontmatter.build).toBe('12345678901234567890')
    expect(entry?.frontmatter.small).toBe(42)
    expect(entry?.frontmatter.nested).toEqual({ neg: '-9007199254740993' })
    const source = new McpSkillSource({ client, id: 'remote', watch: false })
    const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
    cleanups.push(() => manager.dispose())
    await expect(manager.load('big-ints', manager.createTurnContext())).resolves.toBeDefined()
  })
})
