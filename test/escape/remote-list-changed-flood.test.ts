import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillMcpServer, McpSkillSource } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { FileSystemSkillSource, InMemorySkillSource } from '../../src/sources/index.js'
import type { SkillRef, SourceReadOptions } from '../../src/sources/types.js'

// Hole 6 of issue 35: 200 `notifications/resources/list_changed` 1 ms apart
// made McpSkillSource rediscover 200 times, each a full `skills/list` pass on
// the manager's serial queue that loads share. Notices are now gathered (a
// debounce, as the folder watcher's) and at most one pass per source waits
// on the queue. Real server (skillhost's own) and real SDK client; passes
// are counted as the manager's `refreshed` events.

const NOTICES = 200
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** skillhost's server over a folder with one skill, a client connected to it, and how to notify. */
async function served() {
  const root = mkdtempSync(join(tmpdir(), 'skillhost-flood-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'first-skill'))
  writeFileSync(
    join(root, 'first-skill', 'SKILL.md'),
    '---\nname: first-skill\ndescription: The first skill.\n---\n# First\n',
  )
  const serverManager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: [root] })],
    gate: async () => undefined,
  })
  const session = createSkillMcpServer({ manager: serverManager, disposeManager: true })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'flood-test', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    await client.close()
    await session.close()
  })
  /** Sends the flood: `NOTICES` notices, 1 ms apart. */
  const flood = async () => {
    for (let i = 0; i < NOTICES; i++) {
      await session.server.notification({ method: 'notifications/resources/list_changed' })
      await new Promise((r) => setTimeout(r, 1))
    }
  }
  return { client, flood }
}

/** A local source whose body read waits until `release` is called: a load that holds the queue. */
class HeldSource extends InMemorySkillSource {
  release: () => void = () => undefined
  readonly #held = new Promise<void>((resolve) => {
    this.release = resolve
  })
  entered: Promise<void>
  #enter: () => void = () => undefined
  constructor() {
    super({
      id: 'local',
      skills: [{ name: 'local-skill', description: 'A local skill.', body: '# Local\n' }],
    })
    this.entered = new Promise((resolve) => {
      this.#enter = resolve
    })
  }
  override async read(ref: SkillRef, path?: string, options?: SourceReadOptions) {
    this.#enter()
    await this.#held
    return super.read(ref, path, options)
  }
}

/**
 * Resolves once every pass queued so far has run: the manager's queue is
 * first in, first out, so an operation queued now runs after them (an
 * unload of a skill not loaded, which fails there and changes nothing).
 */
async function queueDrained(manager: SkillManager): Promise<void> {
  await manager.unload('not-loaded', manager.createTurnContext()).catch(() => undefined)
}

/**
 * Counts the notices the client receives (the host's own handler, which the
 * source stands in front of) and resolves `all` at the first telling that
 * covers every one of them: the telling that follows the last notice.
 */
function noticesHeard(client: Client): {
  watch: (source: McpSkillSource) => void
  tellings: () => number
  all: Promise<void>
} {
  let received = 0
  let tellings = 0
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    received += 1
  })
  let resolve: () => void = () => undefined
  const all = new Promise<void>((r) => {
    resolve = r
  })
  const watch = (source: McpSkillSource) =>
    cleanups.push(
      source.onDidChange(() => {
        tellings += 1
        if (received === NOTICES) resolve()
      }),
    )
  return { watch, tellings: () => tellings, all }
}

function countPasses(manager: SkillManager): { passes: () => number; next: () => Promise<void> } {
  let passes = 0
  let wake: () => void = () => undefined
  manager.onDidChange((event) => {
    if (event.kind !== 'refreshed') return
    passes += 1
    wake()
  })
  return {
    passes: () => passes,
    next: () =>
      new Promise<void>((resolve) => {
        wake = resolve
      }),
  }
}

describe('a flood of list_changed notices from a remote skill server', () => {
  it('waits as one rediscovery pass behind a load that holds the queue, however many notices came', async () => {
    const { client, flood } = await served()
    const heard = noticesHeard(client)
    const remote = new McpSkillSource({ client, id: 'remote' })
    const held = new HeldSource()
    const manager = await createSkillManager({
      sources: [remote, held],
      gate: async () => undefined,
    })
    cleanups.push(() => manager.dispose())
    const counted = countPasses(manager)
    heard.watch(remote)
    const load = manager.load('local-skill', manager.createTurnContext())
    await held.entered
    await flood()
    await heard.all
    expect(counted.passes()).toBe(0)
    held.release()
    await load
    await queueDrained(manager)
    const told = heard.tellings()
    console.log(
      `list_changed flood (queue held): ${NOTICES} notices, ${told} tellings, ${counted.passes()} passes`,
    )
    expect(told).toBeLessThan(NOTICES)
    // Only the one waiting pass ran; no telling came after it started.
    expect(counted.passes()).toBe(1)
  })

  it('costs a few passes on a free queue, and the last pass sees the server as it is', async () => {
    const { client, flood } = await served()
    const heard = noticesHeard(client)
    const remote = new McpSkillSource({ client, id: 'remote' })
    const manager = await createSkillManager({
      sources: [remote],
      gate: async () => undefined,
    })
    cleanups.push(() => manager.dispose())
    const counted = countPasses(manager)
    heard.watch(remote)
    await flood()
    await heard.all
    await queueDrained(manager)
    console.log(`list_changed flood (free queue): ${NOTICES} notices, ${counted.passes()} passes`)
    // 200 passes before the fix; a few now (one per 100 ms debounce window the flood spans).
    expect(counted.passes()).toBeLessThan(NOTICES / 4)
  })
})
