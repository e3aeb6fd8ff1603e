import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import {
  type CallToolResult,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { createSkillMcpServer } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { memorySource, reportSkill } from './manager-fixtures.js'
import { makeRig, type Rig } from './sandbox.js'

/** One MCP session (real SDK client, in memory) over a manager with scripts, so with a workspace. */
export interface WorkspaceSession {
  readonly client: Client
  readonly manager: SkillManager
  /** The workspace's host folder (made on first use). */
  readonly dir: string
  /** `notifications/resources/list_changed` received so far. */
  changes(): number
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>
  close(): Promise<void>
}

/** A fresh rig (real bubblewrap handle, a private workspace base) for `workspaceSession`. */
export function workspaceRig(): Promise<Rig> {
  return makeRig()
}

/** Connects a new session on `rig`: its own manager, hence its own workspace. */
export async function workspaceSession(rig: Rig): Promise<WorkspaceSession> {
  const manager = await createSkillManager({
    sources: [memorySource([reportSkill({ files: { 'ref/notes.md': '# notes\n' } })])],
    gate: async () => undefined,
    scripts: rig.config,
  })
  const session = createSkillMcpServer({ manager, disposeManager: true })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: 'workspace-test', version: '1.0.0' })
  let changes = 0
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    changes += 1
  })
  await client.connect(clientSide)
  const dir = (await manager.workspace?.path()) ?? ''
  return {
    client,
    manager,
    dir,
    changes: () => changes,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close()
      await session.close()
    },
  }
}

/** The bytes of a `resources/read` answer's one content, whichever of `text`/`blob` it used. */
export function contentBytes(content: { text?: unknown; blob?: unknown } | undefined): Buffer {
  if (typeof content?.blob === 'string') return Buffer.from(content.blob, 'base64')
  if (typeof content?.text === 'string') return Buffer.from(content.text, 'utf8')
  throw new Error('no content')
}

/** Every resource URI `resources/list` gives, page by page, and the pages' sizes. */
export async function listAll(client: Client): Promise<{ uris: string[]; pages: number[] }> {
  const uris: string[] = []
  const pages: number[] = []
  let cursor: string | undefined
  do {
    const page = await client.listResources(cursor === undefined ? {} : { cursor })
    uris.push(...page.resources.map((r) => r.uri))
    pages.push(page.resources.length)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return { uris, pages }
}
