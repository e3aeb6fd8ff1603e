import { describe, expect, it } from 'vitest'
import {
  createTurnContext,
  MemorySpoolStore,
  RetrievableSet,
  ToolRegistry,
} from '../../src/common/index.js'

describe('createTurnContext', () => {
  it('builds a fresh, frozen context with its own registry and projections', () => {
    const a = createTurnContext()
    const b = createTurnContext()
    expect(a.tools).toBeInstanceOf(ToolRegistry)
    expect(a.retrievables).toBeInstanceOf(RetrievableSet)
    expect(a.tools).not.toBe(b.tools)
    expect(a.retrievables).not.toBe(b.retrievables)
    expect(a.spool).not.toBe(b.spool)
    expect(a.id).not.toBe(b.id)
    expect(a.abortSignal.aborted).toBe(false)
    expect(Object.isFrozen(a)).toBe(true)
  })

  it('uses the given spool, signal and id', () => {
    const spool = new MemorySpoolStore()
    const controller = new AbortController()
    const ctx = createTurnContext({ spool, abortSignal: controller.signal, id: 'turn-1' })
    expect(ctx.spool).toBe(spool)
    expect(ctx.id).toBe('turn-1')
    controller.abort()
    expect(ctx.abortSignal.aborted).toBe(true)
  })

  it('RetrievableSet keeps insertion order, replaces by id and removes exactly', () => {
    const set = new RetrievableSet()
    const r = (id: string) => ({
      id,
      kind: 'text',
      mimeType: 'text/plain',
      size: 1,
      provenance: {},
      trusted: false,
      createdAt: 0,
    })
    set.add({ retrievable: r('a'), channel: 'inline', text: 'A' })
    set.add({ retrievable: r('b'), channel: 'handle', text: 'B' })
    set.add({ retrievable: r('a'), channel: 'inline', text: 'A2' })
    expect(set.all().map((p) => p.text)).toEqual(['A2', 'B'])
    expect(set.size).toBe(2)
    expect(set.remove('a')).toBe(true)
    expect(set.remove('a')).toBe(false)
    expect(set.has('b')).toBe(true)
    expect(set.get('b')?.channel).toBe('handle')
  })
})
