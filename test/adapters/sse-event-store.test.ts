import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { SSE_EVENT_LIMITS, SseEventStore } from '../../src/adapters/mcp/sse-event-store.js'

const note = (n: number, pad = ''): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: { n, pad } },
})

async function replay(store: SseEventStore, id: string): Promise<unknown[]> {
  const sent: unknown[] = []
  await store.replayEventsAfter(id, {
    send: async (_eventId, message) => {
      sent.push((message as { params?: { data?: { n?: number } } }).params?.data?.n)
    },
  })
  return sent
}

describe('SseEventStore (issue 36 item 5)', () => {
  it('replays what came after an id, on its own stream only, never the priming event', async () => {
    const store = new SseEventStore()
    const priming = await store.storeEvent('a', {} as JSONRPCMessage)
    const first = await store.storeEvent('a', note(1))
    await store.storeEvent('b', note(99))
    await store.storeEvent('a', note(2))
    expect(await store.getStreamIdForEventId(first)).toBe('a')
    expect(await replay(store, priming)).toEqual([1, 2])
    expect(await replay(store, first)).toEqual([2])
  })

  it('a flood of events on one stream stays within the stream bounds, counted', async () => {
    const limits = { ...SSE_EVENT_LIMITS, eventsPerStream: 50, bytesPerStream: 4096 }
    const store = new SseEventStore(limits)
    let maxEvents = 0
    let maxBytes = 0
    for (let i = 0; i < 10_000; i++) {
      await store.storeEvent('flood', note(i, 'x'.repeat(i % 200)))
      maxEvents = Math.max(maxEvents, store.counts.events)
      maxBytes = Math.max(maxBytes, store.counts.bytes)
    }
    expect(maxEvents).toBeLessThanOrEqual(50)
    expect(maxBytes).toBeLessThanOrEqual(4096)
    expect(store.counts.streams).toBe(1)
  })

  it('many streams stay within the session bounds: the oldest streams go first', async () => {
    const limits = { ...SSE_EVENT_LIMITS, eventsPerSession: 100, bytesPerSession: 20_000 }
    const store = new SseEventStore(limits)
    const firsts: string[] = []
    let maxEvents = 0
    let maxBytes = 0
    for (let s = 0; s < 1_000; s++) {
      firsts.push(await store.storeEvent(`s${s}`, note(s)))
      await store.storeEvent(`s${s}`, note(s, 'y'.repeat(300)))
      maxEvents = Math.max(maxEvents, store.counts.events)
      maxBytes = Math.max(maxBytes, store.counts.bytes)
    }
    expect(maxEvents).toBeLessThanOrEqual(100)
    expect(maxBytes).toBeLessThanOrEqual(20_000)
    expect(store.counts.streams).toBeLessThanOrEqual(50)
    // An evicted stream cannot be resumed; the newest can.
    expect(await store.getStreamIdForEventId(firsts[0] as string)).toBeUndefined()
    expect(await store.getStreamIdForEventId(firsts[999] as string)).toBe('s999')
  })

  it('a resume from before an evicted event is refused, never partial', async () => {
    const store = new SseEventStore({ ...SSE_EVENT_LIMITS, eventsPerStream: 3 })
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(await store.storeEvent('a', note(i)))
    // Events 0-2 are gone: a client that saw only 1 would miss 2.
    expect(await store.getStreamIdForEventId(ids[1] as string)).toBeUndefined()
    await expect(replay(store, ids[1] as string)).rejects.toThrow()
    // One that saw 2 (the newest evicted) misses nothing.
    expect(await replay(store, ids[2] as string)).toEqual([3, 4, 5])
  })

  it("knows no other store's ids, no forged ids, and nothing after clear()", async () => {
    const a = new SseEventStore()
    const b = new SseEventStore()
    const id = await a.storeEvent('s', note(1))
    await b.storeEvent('s', note(1))
    expect(await b.getStreamIdForEventId(id)).toBeUndefined()
    for (const forged of ['', 'x', '0.0.0', `${id}.1`, id.replace(/\.0$/, '.-1'), `${id} `])
      expect(await a.getStreamIdForEventId(forged)).toBeUndefined()
    a.clear()
    expect(a.counts).toEqual({ streams: 0, events: 0, bytes: 0 })
    expect(await a.getStreamIdForEventId(id)).toBeUndefined()
    // A late event after the session ended is not kept.
    await a.storeEvent('s', note(2))
    expect(a.counts).toEqual({ streams: 0, events: 0, bytes: 0 })
  })

  it('forgets the stream of a request handed over, and only while handing', async () => {
    const store = new SseEventStore()
    const primed = await store.handing(7, () => store.storeEvent('req7', {} as JSONRPCMessage))
    await store.storeEvent('other', {} as JSONRPCMessage)
    expect(store.forgetRequest(7)).toBe(true)
    expect(await store.getStreamIdForEventId(primed)).toBeUndefined()
    expect(store.forgetRequest(7)).toBe(false)
    expect(store.counts.streams).toBe(1)
    // A request answered is no longer forgettable: its stream stays for resumption.
    await store.handing('r', () => store.storeEvent('reqR', {} as JSONRPCMessage))
    await store.storeEvent('reqR', { jsonrpc: '2.0', id: 'r', result: {} })
    expect(store.forgetRequest('r')).toBe(false)
    expect(store.counts.streams).toBe(2)
  })
})
