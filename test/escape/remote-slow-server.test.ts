import { createHash } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { McpSkillSource, SKILLS_EXTENSION_ID } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { rejectsWith } from '../helpers/error-code.js'

// Hole 7 of issue 35: a remote `resources/read` answered after 8 s made a
// local skill's load wait 8 s behind it (remote reads sat on the manager's
// serial queue that local loads share), and each remote read was bounded
// only by the MCP SDK's 60 s default. The server here is written with the
// official SDK and answers a read only when the test says so: ordering is
// asserted, never a duration.

const SKILL_MD = '---\nname: remote-skill\ndescription: A remote skill.\n---\n# Remote\n'
const hex = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A Skills Extension server with one skill whose reads wait for `answer()`; `asked` resolves at the first read. */
async function slowServer() {
  const server = new Server(
    { name: 'slow', version: '1.0.0' },
    { capabilities: { resources: {}, extensions: { [SKILLS_EXTENSION_ID]: {} } } },
  )
  const uri = 'skill://slow/remote-skill/SKILL.md'
  server.setRequestHandler(
    z.object({ method: z.literal('skills/list'), params: z.any().optional() }),
    async () => ({
      resultType: 'complete',
      skills: [
        {
          uri,
          frontmatter: { name: 'remote-skill', description: 'A remote skill.' },
          resources: [{ uri, digest: hex(SKILL_MD), size: Buffer.byteLength(SKILL_MD) }],
        },
      ],
      ttlMs: 0,
      cacheScope: 'public',
    }),
  )
  let answer: () => void = () => undefined
  const answered = new Promise<void>((resolve) => {
    answer = resolve
  })
  let onAsked: () => void = () => undefined
  const asked = new Promise<void>((resolve) => {
    onAsked = resolve
  })
  let reads = 0
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    reads += 1
    onAsked()
    await answered
    return { contents: [{ uri: request.params.uri, text: SKILL_MD }] }
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'slow-test', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    answer()
    await client.close()
    await server.close()
  })
  return { client, answer, asked, reads: () => reads }
}

const local = () =>
  new InMemorySkillSource({
    id: 'local',
    skills: [{ name: 'local-skill', description: 'A local skill.', body: '# Local\n' }],
  })

async function managerOver(remote: McpSkillSource) {
  const manager = await createSkillManager({
    sources: [remote, local()],
    gate: async () => undefined,
    defaultChannel: 'inline',
  })
  cleanups.push(() => manager.dispose())
  return manager
}

describe('a slow remote skill server', () => {
  it('never holds up a local load: the local skill loads while the remote read is unanswered', async () => {
    const slow = await slowServer()
    const manager = await managerOver(new McpSkillSource({ client: slow.client, id: 'remote' }))
    const order: string[] = []
    const remote = manager.load('remote-skill', manager.createTurnContext()).then((r) => {
      order.push('remote')
      return r
    })
    await slow.asked
    const loaded = await manager.load('local-skill', manager.createTurnContext())
    order.push('local')
    expect(loaded.body).toContain('# Local')
    expect(order).toEqual(['local'])
    // Another local turn, and an unload, are not held either.
    await manager.unload('local-skill', manager.createTurnContext()).catch(() => undefined)
    slow.answer()
    expect((await remote).body).toContain('# Remote')
    expect(order).toEqual(['local', 'remote'])
    // The remote files were fetched once, before the load's turn on the queue.
    expect(slow.reads()).toBe(1)
  })

  it('gives up on a read past the source’s own deadline with E_SKILL_SOURCE_FAILED naming it; local loads go on', async () => {
    const slow = await slowServer()
    const manager = await managerOver(
      new McpSkillSource({ client: slow.client, id: 'remote', requestTimeoutMs: 50 }),
    )
    const error = await rejectsWith(
      manager.load('remote-skill', manager.createTurnContext()),
      'E_SKILL_SOURCE_FAILED',
    )
    expect(error.message).toBe(
      'The server behind source "remote" did not answer within 50 ms (requestTimeoutMs); try again later.',
    )
    expect(error.data).toEqual({ source: 'remote', timeoutMs: 50 })
    expect(manager.loadedSkills()).toEqual([])
    expect((await manager.load('local-skill', manager.createTurnContext())).id).toBe('local-skill')
    // Once the server answers, the same source loads the skill.
    slow.answer()
    expect((await manager.load('remote-skill', manager.createTurnContext())).id).toBe(
      'remote-skill',
    )
  })

  it('refuses a deadline that is not a positive integer', async () => {
    const slow = await slowServer()
    for (const requestTimeoutMs of [0, -1, 1.5, Number.NaN])
      expect(() => new McpSkillSource({ client: slow.client, requestTimeoutMs })).toThrow(
        'requestTimeoutMs must be a positive integer',
      )
  })
})
