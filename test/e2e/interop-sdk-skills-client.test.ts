import type { Client } from '@modelcontextprotocol/client'
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills'
import { describe, expect, it } from 'vitest'
import { BYTES_SKILL, diskBytes, fileCount, serveForInterop } from '../helpers/interop.js'
import { connectSdk2 } from '../helpers/sdk2-client.js'

// Issue 36 items 4 and 7: the official SDK 2.x `SkillsClient` lists, reads and
// verifies (size, digest, SKILL.md frontmatter) every skill the built
// `skillhost serve` serves, over Streamable HTTP and stdio, on both protocol
// eras: 2025-11-25 (initialize, a session) and 2026-07-28 (server/discover,
// no handshake, a per-request envelope).

const { roots, expected, target } = serveForInterop()

/** Every served file read back through `SkillsClient.read`, verified, equal to the bytes on disk. */
async function verifyAll(client: Client): Promise<number> {
  const skills = new SkillsClient(client)
  expect(skills.supported).toBe(true)
  const { skills: entries, invalid } = await skills.list()
  expect(invalid).toEqual([])
  expect(entries.map((e) => e.uri).sort()).toEqual(
    [...expected.keys()].map((id) => `skill://${id}/SKILL.md`).sort(),
  )
  let files = 0
  for (const entry of entries) {
    const id = entry.uri.split('/')[2] as string
    const want = expected.get(id) ?? []
    expect(Array.isArray(entry.resources)).toBe(true)
    const listed = (entry.resources as { uri: string; size: number; digest: string }[])
      .map(({ uri, size, digest }) => ({ uri, size, digest }))
      .sort((a, b) => (a.uri < b.uri ? -1 : 1))
    expect(listed, id).toEqual(want)
    for (const file of want) {
      const read = await skills.read(entry, file.uri)
      expect(read.verified, file.uri).toBe(true)
      expect(Buffer.from(read.bytes).equals(diskBytes(roots, file.uri)), file.uri).toBe(true)
      files++
    }
  }
  return files
}

const total = fileCount(expected)

describe.each(['http', 'stdio'] as const)('SDK 2.x SkillsClient over %s', (kind) => {
  // A stdio client spawns the server (twice for 2026-07-28: the SDK probes in a
  // disposable sibling process), so a loaded machine needs more than the default.
  it('negotiates 2025-11-25 by default and verifies every file', { timeout: 120_000 }, async () => {
    const client = await connectSdk2(target(kind), 'legacy', 'interop-sdk2')
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
      expect(await verifyAll(client)).toBe(total)
    } finally {
      await client.close()
    }
  })

  it('negotiates 2026-07-28 through server/discover and verifies every file', {
    timeout: 120_000,
  }, async () => {
    const client = await connectSdk2(target(kind), '2026-07-28', 'interop-sdk2')
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const discover = await client.discover()
      expect(discover.supportedVersions).toEqual(
        expect.arrayContaining(['2026-07-28', '2025-11-25']),
      )
      expect(discover.capabilities.extensions).toHaveProperty(['io.modelcontextprotocol/skills'])
      expect(await verifyAll(client)).toBe(total)
      const tools = await client.listTools()
      expect(tools.tools.map((t) => t.name)).toContain('load_skill')
      // Over stdio the process is the session: a loaded skill's tools stay for the next request.
      if (kind === 'stdio') {
        const load = await client.callTool({
          name: 'load_skill',
          arguments: { skill: 'unit-convert' },
        })
        expect(load.isError).toBeFalsy()
        const after = await client.listTools()
        expect(after.tools.length).toBeGreaterThan(tools.tools.length)
      }
    } finally {
      await client.close()
    }
  })
})

it('serves the fixture skill whose bytes a text path changes (BOM, Latin-1, empty)', () => {
  const files = expected.get(BYTES_SKILL)?.map((f) => f.uri) ?? []
  expect(files).toEqual([
    `skill://${BYTES_SKILL}/SKILL.md`,
    `skill://${BYTES_SKILL}/references/bom.md`,
    `skill://${BYTES_SKILL}/references/empty.txt`,
    `skill://${BYTES_SKILL}/references/latin1.txt`,
  ])
  expect(expected.size).toBeGreaterThanOrEqual(6)
})
