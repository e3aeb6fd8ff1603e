import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { serveMcpStdio } from '../../src/adapters/mcp/index.js'
import { createSkillManager, type SkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

/** The client's side of a stdio pipe pair, framed the way the SDK frames stdio. */
function pipeClientTransport(toServer: PassThrough, fromServer: PassThrough): Transport {
  const buffer = new ReadBuffer()
  const transport: Transport = {
    async start() {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk)
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) transport.onmessage?.(m)
      })
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message))
    },
    async close() {
      toServer.end()
      transport.onclose?.()
    },
  }
  return transport
}

/** A manager factory that waits until the test lets it finish, and counts calls. */
function heldFactory() {
  let release: (err?: Error) => void = () => undefined
  const gate = new Promise<void>((resolve, reject) => {
    release = (err) => (err ? reject(err) : resolve())
  })
  const state = { made: 0, manager: undefined as SkillManager | undefined }
  const createManager = async () => {
    await gate
    const source = new InMemorySkillSource({
      skills: [{ name: 'notes', description: 'Takes notes.', body: '# Notes\n' }],
    })
    state.made += 1
    state.manager = await createSkillManager({ sources: [source], gate: async () => undefined })
    return state.manager
  }
  return { createManager, release, state }
}

/** `serveMcpStdio` on a pipe pair with a held manager factory, and the SDK client connected to it. */
async function heldSession(serverInfo?: { name: string; version: string }) {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const factory = heldFactory()
  const server = await serveMcpStdio({
    createManager: factory.createManager,
    stdin: toServer,
    stdout: fromServer,
    ...(serverInfo !== undefined && { serverInfo }),
  })
  const client = new Client({ name: 'test', version: '1.0.0' })
  // The handshake completes while the manager does not exist yet.
  await client.connect(pipeClientTransport(toServer, fromServer))
  return { toServer, factory, server, client }
}

describe('serveMcpStdio answers initialize before its manager is made', () => {
  it('initializes at once, holds tools/list until the manager is ready, then answers it', async () => {
    const { factory, server, client } = await heldSession({ name: 'held-test', version: '9.9.9' })
    expect(factory.state.made).toBe(0)
    expect(client.getServerVersion()).toEqual({ name: 'held-test', version: '9.9.9' })
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true)
    expect(client.getInstructions()).toMatch(/skill/i)
    await client.ping()

    let answered = false
    const listing = client.listTools().then((r) => {
      answered = true
      return r
    })
    // Give the held request every chance to be answered early: it must not be.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
    expect(answered).toBe(false)

    factory.release()
    const { tools } = await listing
    expect(tools.map((t) => t.name)).toContain('load_skill')
    const session = await server.ready
    expect(factory.state.made).toBe(1)
    // The replayed initialize taught the server the client's identity.
    expect(session.server.getClientVersion()).toEqual({ name: 'test', version: '1.0.0' })
    const loaded = await client.callTool({ name: 'load_skill', arguments: { skill: 'notes' } })
    expect(loaded.isError).toBeFalsy()

    await client.close()
    await server.closed
    await server.close()
  })

  it('answers held requests with an error and closes when the manager cannot be made', async () => {
    const { factory, server, client } = await heldSession()
    const listing = client.listTools()
    factory.release(new Error('discovery failed at /secret/host/path'))
    await expect(listing).rejects.toThrow(/could not start/)
    await expect(listing).rejects.not.toThrow(/secret/)
    await expect(server.ready).rejects.toThrow(/discovery failed/)
    await server.closed
    await client.close()
  })

  it('answers what it holds when stdin ends before the manager is ready, then closes', async () => {
    const { toServer, factory, server, client } = await heldSession()
    const listing = client.listTools()
    const cancelled = new AbortController()
    const abandoned = client.listResources(undefined, { signal: cancelled.signal })
    cancelled.abort()
    await expect(abandoned).rejects.toThrow()
    // Input over while both requests are held: the session must still answer the live one.
    toServer.end()
    let closed = false
    void server.closed.then(() => {
      closed = true
    })
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
    expect(closed).toBe(false)
    factory.release()
    const { tools } = await listing
    expect(tools.map((t) => t.name)).toContain('load_skill')
    // The cancelled request owes no answer, so closing does not wait for one.
    await server.closed
    expect(factory.state.made).toBe(1)
    await client.close()
  })
})
