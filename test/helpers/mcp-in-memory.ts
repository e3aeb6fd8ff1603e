import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterEach } from 'vitest'
import {
  createSkillMcpServer,
  type SkillMcpServerOptions,
  type SkillMcpSession,
} from '../../src/adapters/mcp/index.js'

/** Closers a test file registers; each runs after the test that made it, last first. */
export type Cleanups = (() => unknown)[]

/** A list of closers run (last first) after each test of the calling file; call at top level. */
export function cleanupAfterEach(): Cleanups {
  const cleanups: Cleanups = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  return cleanups
}

/** The official SDK client on one skillhost MCP session over the SDK's in-memory pair. */
export interface InMemoryMcp {
  readonly client: Client
  readonly session: SkillMcpSession
}

/**
 * `createSkillMcpServer(options)` connected to the official SDK client (named
 * `clientName`) over the SDK's linked in-memory transports: the one home of
 * that set-up. Client and session close after the test (through `cleanups`).
 */
export async function connectInMemory(
  cleanups: Cleanups,
  options: SkillMcpServerOptions,
  clientName = 'test',
): Promise<InMemoryMcp> {
  const session = createSkillMcpServer(options)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: clientName, version: '1.0.0' })
  await client.connect(clientSide)
  cleanups.push(async () => {
    await client.close()
    await session.close()
  })
  return { client, session }
}

/**
 * A fresh folder (prefix `prefix`) holding `files` (paths relative to it,
 * folders made as needed), removed after the test (through `cleanups`).
 */
export function filesFolder(
  cleanups: Cleanups,
  prefix: string,
  files: Record<string, string | Uint8Array>,
): string {
  const root = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}
