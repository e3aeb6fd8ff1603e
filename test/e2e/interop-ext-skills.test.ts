import type { Client } from '@modelcontextprotocol/client'
import {
  getSkill,
  listSkills,
  manifestOf,
  readSkill,
  readSkillResource,
  serverSupportsSkills,
} from '@olaservo/ext-skills/client'
import { describe, expect, it } from 'vitest'
import { diskBytes, fileCount, serveForInterop } from '../helpers/interop.js'
import { connectSdk2, type Era } from '../helpers/sdk2-client.js'

// Issue 36 item 7: `@olaservo/ext-skills` (the Skills Extension SDK, an
// independent implementation over the official SDK 2.x client) lists, gets,
// reads and verifies (digest over the raw bytes, SKILL.md frontmatter equal
// to the entry's) every skill of the built `skillhost serve`, over HTTP and
// stdio, on 2025-11-25 and 2026-07-28.

const { roots, expected, target } = serveForInterop()

/** Each served file read through ext-skills' verified readers; returns how many. */
async function verifyAll(client: Client): Promise<number> {
  // ext-skills types its client as the SDK 2.x Client it was built against.
  const skillsClient = client as unknown as Parameters<typeof listSkills>[0]
  expect(serverSupportsSkills(skillsClient)).toBe(true)
  const entries = await listSkills(skillsClient)
  expect(entries.map((e) => e.uri).sort()).toEqual(
    [...expected.keys()].map((id) => `skill://${id}/SKILL.md`).sort(),
  )
  let files = 0
  for (const listed of entries) {
    // skills/get answers the listed URI with the same entry.
    const entry = await getSkill(skillsClient, listed.uri)
    expect(entry).toEqual(listed)
    const id = entry.uri.split('/')[2] as string
    const manifest = manifestOf(entry) ?? []
    expect(
      manifest
        .map(({ uri, size, digest }) => ({ uri, size, digest }))
        .sort((a, b) => (a.uri < b.uri ? -1 : 1)),
    ).toEqual(expected.get(id))
    // readSkill: SKILL.md, digest and frontmatter verified.
    const text = await readSkill(skillsClient, entry)
    expect(Buffer.from(text, 'utf8').equals(diskBytes(roots, entry.uri))).toBe(true)
    for (const file of manifest) {
      const read = await readSkillResource(skillsClient, entry, file.uri)
      const bytes =
        read.text !== undefined
          ? Buffer.from(read.text, 'utf8')
          : Buffer.from(read.blob ?? '', 'base64')
      expect(bytes.equals(diskBytes(roots, file.uri)), file.uri).toBe(true)
      files++
    }
  }
  return files
}

describe.each(['http', 'stdio'] as const)('@olaservo/ext-skills over %s', (kind) => {
  // Spawning the server per stdio connection (twice for 2026-07-28's probe) takes a while on a loaded machine.
  it.each(['legacy', '2026-07-28'] as Era[])(
    'verifies every file (%s)',
    { timeout: 120_000 },
    async (era) => {
      const client = await connectSdk2(target(kind), era, 'interop-ext-skills')
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(era === 'legacy' ? '2025-11-25' : era)
        expect(await verifyAll(client)).toBe(fileCount(expected))
      } finally {
        await client.close()
      }
    },
  )
})
