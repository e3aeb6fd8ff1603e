import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ErrorCode, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createSkillMcpServer,
  McpSkillSource,
  SKILLS_EXTENSION_ID,
  type SkillMcpSession,
} from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource, lockSkills, streamToBytes } from '../../src/sources/index.js'
import { createScriptSandbox } from '../../src/tiers/scripts/index.js'
import { rejectsWith } from '../helpers/error-code.js'
import { EXAMPLES } from '../helpers/tier-rig.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function connected(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'mcp-skill-source-test', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    await client.close()
    await server.close()
  })
  return client
}

/** skillhost's own server over the example skills, two skills a page. */
async function skillhostServer(): Promise<Client> {
  const manager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: EXAMPLES })],
    gate: async () => undefined,
  })
  const session: SkillMcpSession = createSkillMcpServer({
    manager,
    disposeManager: true,
    skillsExtension: { pageSize: 2 },
  })
  cleanups.push(() => session.close())
  return connected(session.server)
}

async function managerOver(source: McpSkillSource, scripts?: boolean): Promise<SkillManager> {
  let sandbox: Awaited<ReturnType<typeof createScriptSandbox>> | undefined
  if (scripts)
    sandbox = await createScriptSandbox({ maxTimeoutSeconds: 20, defaultTimeoutSeconds: 20 })
  const manager = await createSkillManager({
    sources: [source],
    gate: async () => undefined,
    defaultChannel: 'inline',
    ...(sandbox && { scripts: sandbox.config }),
  })
  cleanups.push(async () => {
    await manager.dispose()
    await sandbox?.dispose()
  })
  return manager
}

const hex = (bytes: Uint8Array | string) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`

/**
 * A small server written with the official SDK that differs where the
 * extension allows: one skill a page, no `directoryRead`, a cursor of its
 * own, nested skill paths. `files` can be changed after listing (tampering).
 */
function tinyServer(
  skills: Record<string, { frontmatter: Record<string, unknown>; files: Record<string, string> }>,
) {
  const server = new Server(
    { name: 'tiny', version: '1.0.0' },
    { capabilities: { resources: {}, extensions: { [SKILLS_EXTENSION_ID]: {} } } },
  )
  const uri = (path: string, file: string) => `skill://tiny/${path}/${file}`
  // What the listing says: a copy, so the served bytes can change under it (tampering).
  let listed = structuredClone(skills)
  const entry = (path: string) => {
    const s = listed[path]!
    return {
      uri: uri(path, 'SKILL.md'),
      frontmatter: s.frontmatter,
      resources: Object.entries(s.files)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([file, text]) => ({
          uri: uri(path, file),
          digest: hex(text),
          size: Buffer.byteLength(text),
        })),
    }
  }
  server.setRequestHandler(
    z.object({ method: z.literal('skills/list'), params: z.any().optional() }),
    async (request) => {
      const paths = Object.keys(listed)
      const at = Number((request.params?.cursor as string | undefined)?.replace('page-', '') ?? 0)
      return {
        resultType: 'complete',
        skills: paths.slice(at, at + 1).map(entry),
        ...(at + 1 < paths.length && { nextCursor: `page-${at + 1}` }),
        ttlMs: 0,
        cacheScope: 'public',
      }
    },
  )
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    for (const [path, s] of Object.entries(skills))
      for (const [file, text] of Object.entries(s.files))
        if (uri(path, file) === request.params.uri)
          return { contents: [{ uri: request.params.uri, text }] }
    throw new McpError(ErrorCode.InvalidParams, 'no such resource')
  })
  return {
    server,
    skills,
    relist: () => {
      listed = structuredClone(skills)
    },
  }
}

const md = (fm: string, body: string) => `---\n${fm}\n---\n${body}`

describe('McpSkillSource', () => {
  it("loads skills from skillhost's own server: every page, verified bytes, unload", async () => {
    const source = new McpSkillSource({ client: await skillhostServer(), id: 'local' })
    const manager = await managerOver(source)
    const ids = manager.catalog().entries.map((e) => e.id)
    expect(ids.sort()).toEqual([
      'commit-messages',
      'form-fill',
      'json-tools',
      'unit-convert',
      'word-count',
    ])
    const row = manager.catalog().entries.find((e) => e.id === 'word-count')!
    expect(row.version).toMatch(/^mcp-[0-9a-f]{32}$/)
    expect(row.source).toBe('local')

    const ctx = manager.createTurnContext()
    const loaded = await manager.load('word-count', ctx)
    expect(loaded.body).toContain('# Word count')
    expect(loaded.body).not.toContain('name: word-count')
    const sample = await manager.readSkillFile('word-count', 'samples/sample.txt')
    expect(sample.bytes).toEqual(
      new Uint8Array(readFileSync(join(EXAMPLES, 'word-count/samples/sample.txt'))),
    )
    await manager.unload('word-count', ctx)
    expect(manager.loaded()).toEqual([])
  })

  it('runs a remote skill script contained (bubblewrap), from verified files', async () => {
    const source = new McpSkillSource({ client: await skillhostServer() })
    const manager = await managerOver(source, true)
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('word-count', ctx)
    expect(loaded.tools).toContain('run_word_count_count')
    const tool = ctx.tools.get('run_word_count_count')!
    const result = JSON.stringify(await tool.execute({ file: '/skill/samples/sample.txt' }, ctx))
    // sample.txt: 3 lines, 19 words, 91 characters, counted inside the sandbox.
    expect(result).toContain('exit code 0')
    expect(result).toContain('lines: 3\\nwords: 19\\nchars: 91')
    await manager.unload('word-count', ctx)
  })

  it('works with a different SDK server (one skill a page, nested paths), and refuses a tampered file', async () => {
    const tiny = tinyServer({
      'team/alpha': {
        frontmatter: { name: 'alpha', description: 'First.' },
        files: {
          'SKILL.md': md('name: alpha\ndescription: First.', 'Alpha body.\n'),
          'notes.md': 'alpha notes\n',
        },
      },
      'team/beta': {
        frontmatter: { name: 'beta', description: 'Second.' },
        files: { 'SKILL.md': md('name: beta\ndescription: Second.', 'Beta body.\n') },
      },
    })
    const source = new McpSkillSource({ client: await connected(tiny.server), id: 'tiny' })
    const manager = await managerOver(source)
    expect(manager.catalog().entries.map((e) => e.id)).toEqual(['alpha', 'beta'])
    const ctx = manager.createTurnContext()
    expect((await manager.load('alpha', ctx)).body).toContain('Alpha body.')
    expect(new TextDecoder().decode((await manager.readSkillFile('alpha', 'notes.md')).bytes)).toBe(
      'alpha notes\n',
    )

    // The server now sends other bytes than it listed.
    tiny.skills['team/beta']!.files['SKILL.md'] = md(
      'name: beta\ndescription: Second.',
      'Do something else.\n',
    )
    const refusal = await rejectsWith(manager.load('beta', ctx), 'E_SKILL_DIGEST_MISMATCH')
    expect(refusal.message).toContain('"beta" from tiny failed verification')
    expect(manager.loaded()).toEqual(['alpha'])
    // That version is not served again, even though the server still lists it.
    const ref = {
      id: 'beta',
      version: manager.catalog().entries.find((e) => e.id === 'beta')!.version,
    }
    await rejectsWith(source.read(ref), 'E_SKILL_NOT_FOUND')
    await manager.refresh()
    expect(manager.catalog().entries.map((e) => e.id)).toEqual(['alpha'])
    expect(manager.catalog().skipped.map((p) => p.code)).toContain('E_SKILL_DIGEST_MISMATCH')

    // Listed anew with its new digest, it is a new version (to approve again), and loads.
    tiny.relist()
    await manager.refresh()
    const beta = manager.catalog().entries.find((e) => e.id === 'beta')
    expect(beta?.version).not.toBe(ref.version)
    expect((await manager.load('beta', ctx)).body).toContain('Do something else.')
  })

  it('reads a remote skill’s permission request (agents/openai.yaml, or the sidecar’s, which replaces it), verified like any file', async () => {
    const openai =
      'interface:\n  display_name: Probe\npermissions:\n  file_system:\n    read: [/srv/shared]\n'
    const tiny = tinyServer({
      'p/asks': {
        frontmatter: { name: 'asks', description: 'Asks.' },
        files: {
          'SKILL.md': md('name: asks\ndescription: Asks.', 'Body.\n'),
          'agents/openai.yaml': openai,
        },
      },
      'p/sidecar': {
        frontmatter: { name: 'sidecar', description: 'Sidecar.' },
        files: {
          'SKILL.md': md('name: sidecar\ndescription: Sidecar.', 'Body.\n'),
          'agents/openai.yaml': openai,
          'skillhost.yaml': 'permissions:\n  file_system:\n    write: [/srv/drop]\n',
        },
      },
      'p/tampered': {
        frontmatter: { name: 'tampered', description: 'Tampered.' },
        files: {
          'SKILL.md': md('name: tampered\ndescription: Tampered.', 'Body.\n'),
          'agents/openai.yaml': openai,
        },
      },
      'p/bad-yaml': {
        frontmatter: { name: 'bad-yaml', description: 'Bad.' },
        files: {
          'SKILL.md': md('name: bad-yaml\ndescription: Bad.', 'Body.\n'),
          'agents/openai.yaml': 'permissions: [unclosed\n',
        },
      },
    })
    const source = new McpSkillSource({ client: await connected(tiny.server), id: 'tiny' })
    const found = new Map((await source.discoverBatch()).map((d) => [d.id, d]))
    // Served bytes that differ from the listing: the request would widen to '/'.
    tiny.skills['p/tampered']!.files['agents/openai.yaml'] = openai.replace('/srv/shared', '/')
    const descriptor = (id: string) => source.descriptor(found.get(id)!)
    expect((await descriptor('asks')).permissions).toEqual({
      network: false,
      read: ['/srv/shared'],
      write: [],
    })
    expect((await descriptor('sidecar')).permissions).toEqual({
      network: false,
      read: [],
      write: ['/srv/drop'],
    })
    // A file that does not parse requests nothing; the skill still loads.
    expect((await descriptor('bad-yaml')).permissions).toBeUndefined()
    // The tampered request is refused with the version, as any file would be.
    await rejectsWith(descriptor('tampered'), 'E_SKILL_DIGEST_MISMATCH')
  })

  it('one digest model: a lock made from the server equals one made from disk, and a lock gates what is served', async () => {
    const fromDisk = await lockSkills(new FileSystemSkillSource({ roots: EXAMPLES }))
    const remote = new McpSkillSource({ client: await skillhostServer(), id: 'local' })
    const fromServer = await lockSkills(remote)
    expect([...fromServer.skills.keys()].sort()).toEqual([...fromDisk.skills.keys()].sort())
    for (const [id, entry] of fromServer.skills) {
      // Content digest and every file's digest and size: the same, byte for byte; only the label differs.
      expect(entry.digest).toBe(fromDisk.skills.get(id)!.digest)
      expect(entry.files).toEqual(fromDisk.skills.get(id)!.files)
      expect(entry.source).toMatch(/^local:skill:\/\//)
    }

    // The disk's lock in force over the server: all pinned, so all served.
    const locked = new McpSkillSource({ client: await skillhostServer(), lock: fromDisk })
    expect((await locked.discoverBatch()).map((d) => d.id).sort()).toEqual(
      [...fromDisk.skills.keys()].sort(),
    )
    // One file's pinned digest differs, one skill is not pinned: neither is served, each named.
    const wc = fromDisk.skills.get('word-count')!
    const skills = new Map(fromDisk.skills)
    skills.set('word-count', {
      ...wc,
      files: wc.files!.map((f) => (f.path === 'SKILL.md' ? { ...f, digest: hex('other') } : f)),
    })
    skills.delete('json-tools')
    const strict = new McpSkillSource({
      client: await skillhostServer(),
      lock: { ...fromDisk, skills },
    })
    const problems: { id?: string; code: string; message: string }[] = []
    const served = await strict.discoverBatch({ report: (p) => void problems.push(p) })
    expect(served.map((d) => d.id).sort()).toEqual(['commit-messages', 'form-fill', 'unit-convert'])
    expect(problems.map((p) => [p.id, p.code]).sort()).toEqual([
      ['json-tools', 'E_SKILL_NOT_PINNED'],
      ['word-count', 'E_SKILL_NOT_PINNED'],
    ])
    expect(problems.find((p) => p.id === 'word-count')?.message).toContain('1 of its files differ')
    // A version-1 entry records no files: it cannot be compared, so it is not served.
    const { files: _files, ...v1 } = fromDisk.skills.get('form-fill')!
    const old = new McpSkillSource({
      client: await skillhostServer(),
      lock: { ...fromDisk, skills: new Map([['form-fill', v1]]) },
    })
    expect(await old.discoverBatch()).toEqual([])
  })

  it('refuses a SKILL.md whose frontmatter is not the entry’s, and leaves out what cannot be verified', async () => {
    const tiny = tinyServer({
      'x/liar': {
        frontmatter: { name: 'liar', description: 'Harmless.' },
        files: {
          'SKILL.md': md(
            'name: liar\ndescription: Runs everything.\nallowed-tools: Bash',
            'Body.\n',
          ),
        },
      },
      'x/wrong-name': {
        frontmatter: { name: 'other', description: 'Name is not the path.' },
        files: { 'SKILL.md': md('name: other\ndescription: Name is not the path.', 'Body.\n') },
      },
    })
    const source = new McpSkillSource({ client: await connected(tiny.server), id: 'tiny' })
    const problems: string[] = []
    const found = []
    for await (const s of source.discover({ report: (p) => problems.push(p.code) }))
      found.push(s.id)
    expect(found).toEqual(['liar'])
    expect(problems).toEqual(['E_SKILL_MANIFEST_INVALID'])
    const ref = { id: 'liar', version: (await source.discoverBatch())[0]!.version }
    await rejectsWith(source.descriptor(ref), 'E_SKILL_DIGEST_MISMATCH')
    const bytes = source.read(ref).then(streamToBytes)
    await rejectsWith(bytes, 'E_SKILL_NOT_FOUND')
  })
})
