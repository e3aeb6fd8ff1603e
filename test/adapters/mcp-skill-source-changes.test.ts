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
import { FileSystemSkillSource } from '../../src/sources/index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

function writeSkill(root: string, name: string): void {
  mkdirSync(join(root, name))
  writeFileSync(
    join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: The ${name} skill, for the change test.\n---\n# ${name}\n`,
  )
}

/** skillhost's server over a folder; the client connected to it; the server's manager. */
async function served(root: string): Promise<{ client: Client; serverManager: SkillManager }> {
  const serverManager = await createSkillManager({
    sources: [new FileSystemSkillSource({ roots: [root] })],
    gate: async () => undefined,
  })
  const session = createSkillMcpServer({ manager: serverManager, disposeManager: true })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'changes-test', version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    await client.close()
    await session.close()
  })
  return { client, serverManager }
}

/** skillhost's server over a fresh folder holding `first-skill`, and the client connected to it. */
async function servedOneSkill() {
  const root = mkdtempSync(join(tmpdir(), 'skillhost-remote-changes-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  writeSkill(root, 'first-skill')
  return { root, ...(await served(root)) }
}

async function managerOver(source: McpSkillSource): Promise<SkillManager> {
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  cleanups.push(() => manager.dispose())
  return manager
}

/** Resolves at the manager's next `refreshed` event. */
const nextRefresh = (manager: SkillManager): Promise<void> =>
  new Promise((resolve) => {
    const off = manager.onDidChange((event) => {
      if (event.kind !== 'refreshed') return
      off()
      resolve()
    })
  })

const ids = (manager: SkillManager) =>
  manager
    .catalog()
    .entries.map((e) => e.id)
    .sort()

describe('McpSkillSource follows the server’s list changes', () => {
  it('a skill added on the server reaches the client’s catalog through resources/list_changed', async () => {
    const { root, client, serverManager } = await servedOneSkill()
    const manager = await managerOver(new McpSkillSource({ client, id: 'remote' }))
    expect(ids(manager)).toEqual(['first-skill'])

    writeSkill(root, 'second-skill')
    const refreshed = nextRefresh(manager)
    // The server rediscovers (as a watch or refresh_skills would) and announces it.
    await serverManager.refresh()
    await refreshed
    expect(ids(manager)).toEqual(['first-skill', 'second-skill'])
  })

  it('watch: false leaves the notification to the host, which passes it on with changed()', async () => {
    const { root, client, serverManager } = await servedOneSkill()
    const source = new McpSkillSource({ client, watch: false })
    const manager = await managerOver(source)
    let told = 0
    const heard = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        told += 1
        resolve()
      })
    })
    writeSkill(root, 'second-skill')
    await serverManager.refresh()
    await heard
    // The host's own handler got it; the source did not replace it, and rediscovered nothing yet.
    expect(told).toBe(1)
    expect(ids(manager)).toEqual(['first-skill'])
    const refreshed = nextRefresh(manager)
    source.changed()
    await refreshed
    expect(ids(manager)).toEqual(['first-skill', 'second-skill'])
  })

  it('stands in front of a handler the host set: both hear each notice, and the host’s is put back', async () => {
    const { root, client, serverManager } = await servedOneSkill()
    let hostHeard = 0
    let wake: () => void = () => undefined
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      hostHeard += 1
      wake()
    })
    const heardByHost = () =>
      new Promise<void>((resolve) => {
        wake = resolve
      })
    const source = new McpSkillSource({ client })
    const manager = await managerOver(source)
    writeSkill(root, 'second-skill')
    const refreshed = nextRefresh(manager)
    let heard = heardByHost()
    await serverManager.refresh()
    await Promise.all([refreshed, heard])
    expect(hostHeard).toBe(1)
    expect(ids(manager)).toEqual(['first-skill', 'second-skill'])
    // The manager leaves (its dispose unsubscribes): the host's handler alone hears the next notice.
    await manager.dispose()
    heard = heardByHost()
    await serverManager.refresh()
    await heard
    expect(hostHeard).toBe(2)
  })

  it('coalesces a burst into one telling, and the last unsubscribe removes its handler', async () => {
    const { client, serverManager } = await servedOneSkill()
    const source = new McpSkillSource({ client, watch: { debounceMs: 5 } })
    let calls = 0
    let told: () => void = () => undefined
    const off = source.onDidChange(() => {
      calls += 1
      told()
    })
    const offAgain = source.onDidChange(() => {
      throw new Error('a listener that throws does not stop the others')
    })
    const once = new Promise<void>((resolve) => {
      told = resolve
    })
    for (let i = 0; i < 5; i++) source.changed()
    await once
    expect(calls).toBe(1)
    off()
    offAgain()
    offAgain()
    source.changed()
    expect(calls).toBe(1)
    // The source's handler is gone: the server's next notice falls through to the client's fallback.
    const fellThrough = new Promise<string>((resolve) => {
      client.fallbackNotificationHandler = async ({ method }) => {
        if (method === 'notifications/resources/list_changed') resolve(method)
      }
    })
    await serverManager.refresh()
    expect(await fellThrough).toBe('notifications/resources/list_changed')
  })
})
