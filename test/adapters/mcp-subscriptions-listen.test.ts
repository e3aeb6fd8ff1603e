import { afterEach, describe, expect, it } from 'vitest'
import { type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import type { SkillManager } from '../../src/manager/types.js'
import { InMemorySkillSource } from '../../src/sources/index.js'
import { modernRequest } from '../helpers/mcp-http-requests.js'
import { connectSdk2 } from '../helpers/sdk2-client.js'

// 2026-07-28 `subscriptions/listen` over stateless HTTP (http-listen.ts):
// the stream acknowledges what is honoured (list changes whose capability
// the server declares; never resource updates), carries the honoured
// change notices of a session of its own stamped with the listen id,
// counts against the session cap while open, and ends with the listen
// result when the server closes. Over real HTTP.

const SUB = 'io.modelcontextprotocol/subscriptionId'
const servers: McpHttpServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

function skill(name: string) {
  return {
    name,
    description: `The ${name} skill, for the listen test.`,
    body: `# ${name}`,
  }
}

async function serve(maxSessions = 4) {
  const source = new InMemorySkillSource({ skills: [skill('first-skill')] })
  const managers: SkillManager[] = []
  const server = await serveMcpHttp({
    host: '127.0.0.1',
    maxSessions,
    createManager: async () => {
      const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
      managers.push(manager)
      return manager
    },
  })
  servers.push(server)
  return { server, source, managers }
}

// biome-ignore lint/suspicious/noExplicitAny: read as JSON, asserted field by field
type Message = Record<string, any>

function listen(server: McpHttpServer, notifications: unknown, signal?: AbortSignal) {
  return fetch(
    server.url,
    modernRequest('subscriptions/listen', { notifications }, { id: 'listen-1', signal }),
  )
}

/** Reads SSE events off `res` as they come; `next()` resolves the next one's data. */
function reader(res: Response) {
  const body = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const next = async (): Promise<Message | undefined> => {
    for (;;) {
      const at = buffer.indexOf('\n\n')
      if (at >= 0) {
        const block = buffer.slice(0, at)
        buffer = buffer.slice(at + 2)
        const data = block.split('\n').find((line) => line.startsWith('data: '))
        if (data) return JSON.parse(data.slice(6)) as Message
        continue
      }
      const { done, value } = await body.read()
      if (done) return undefined
      buffer += decoder.decode(value, { stream: true })
    }
  }
  return { next, cancel: () => body.cancel() }
}

describe('subscriptions/listen over stateless HTTP', () => {
  it('acknowledges what is honoured, then carries a catalog change stamped with the listen id', async () => {
    const { server, source, managers } = await serve()
    const res = await listen(server, {
      resourcesListChanged: true,
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['skill://first-skill/SKILL.md'],
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = reader(res)
    const ack = await events.next()
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { resourcesListChanged: true, toolsListChanged: true },
        _meta: { [SUB]: 'listen-1' },
      },
    })
    expect(ack?.params.notifications).not.toHaveProperty('promptsListChanged')
    expect(ack?.params.notifications).not.toHaveProperty('resourceSubscriptions')
    expect(server.sessionCount()).toBe(0)
    // The skill root changes; the listen session's catalog is refreshed.
    await expect.poll(() => managers.length).toBe(1)
    source.add(skill('second-skill'))
    await managers[0]?.refresh()
    // Both lists changed: the resources (the new skill's files) and the tools (list_skills' description names the catalog).
    const changes = [await events.next(), await events.next()]
    expect(changes.map((c) => c?.method).sort()).toEqual([
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
    ])
    for (const change of changes) expect(change?.params._meta[SUB]).toBe('listen-1')
    await events.cancel()
  })

  it('nothing honoured: the acknowledgement then the listen result, no session made', async () => {
    const { server, managers } = await serve()
    for (const filter of [{}, { promptsListChanged: true }, { resourceSubscriptions: ['x'] }]) {
      const events = reader(await listen(server, filter))
      expect((await events.next())?.params.notifications).toEqual({})
      const result = await events.next()
      expect(result).toMatchObject({
        id: 'listen-1',
        result: { resultType: 'complete', _meta: { [SUB]: 'listen-1' } },
      })
      expect(await events.next()).toBeUndefined()
    }
    expect(managers).toHaveLength(0)
  })

  it('a malformed filter is -32602, never echoed, no stream', async () => {
    const { server, managers } = await serve()
    const hostile = [
      undefined,
      'all',
      ['resourcesListChanged'],
      { resourcesListChanged: 'yes' },
      { resourceSubscriptions: 'skill://x' },
      { resourceSubscriptions: Array.from({ length: 300 }, () => 'u') },
      { resourceSubscriptions: ['u'.repeat(5000)] },
    ]
    for (const filter of hostile) {
      const res = await listen(server, filter)
      expect(res.headers.get('content-type')).toBe('application/json')
      const text = await res.text()
      expect((JSON.parse(text) as Message).error.code).toBe(-32602)
      expect(text).not.toContain('uuuu')
      expect(text).not.toContain('skill://x')
    }
    expect(managers).toHaveLength(0)
  })

  it('an open stream holds a session slot until the client goes; refused 503 when the cap is full', async () => {
    const { server, managers } = await serve(1)
    const controller = new AbortController()
    const first = reader(await listen(server, { resourcesListChanged: true }, controller.signal))
    await first.next()
    const refused = await listen(server, { resourcesListChanged: true })
    expect(refused.status).toBe(503)
    await refused.body?.cancel()
    controller.abort()
    // The slot comes back once the first stream's session is closed; every refused try is counted.
    let second: Response | undefined
    let tries = 0
    await expect
      .poll(async () => {
        tries++
        const res = await listen(server, { resourcesListChanged: true })
        if (res.status === 200) second = res
        else await res.body?.cancel()
        return res.status
      })
      .toBe(200)
    expect(tries).toBeGreaterThanOrEqual(1)
    const events = reader(second as Response)
    expect((await events.next())?.method).toBe('notifications/subscriptions/acknowledged')
    await events.cancel()
    expect(managers).toHaveLength(2)
  })

  it('the server closing ends each stream with the listen result', async () => {
    const { server } = await serve()
    const events = reader(await listen(server, { resourcesListChanged: true }))
    await events.next()
    const closing = server.close()
    expect(await events.next()).toMatchObject({
      id: 'listen-1',
      result: { resultType: 'complete' },
    })
    await closing
  })

  it('the SDK 2.x client pinned to 2026-07-28 opens a subscription and is told what is honoured', async () => {
    const { server } = await serve()
    const client = await connectSdk2({ http: server.url }, '2026-07-28', 'listen')
    try {
      const subscription = await client.listen({
        resourcesListChanged: true,
        promptsListChanged: true,
      })
      expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true })
      await subscription.close()
    } finally {
      await client.close()
    }
  })
})
