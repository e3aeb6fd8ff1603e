import { describe, expect, it } from 'vitest'
import { Tool, ToolRegistry, type ToolRegistryChange } from '../../src/common/index.js'

const make = (name: string) =>
  new Tool({ name, description: '', inputSchema: {}, handler: () => name })

describe('ToolRegistry', () => {
  it('registers, gets, lists and counts', () => {
    const reg = new ToolRegistry()
    const a = make('a')
    const b = make('b')
    reg.register(a)
    reg.register(b)
    expect(reg.get('a')).toBe(a)
    expect(reg.has('b')).toBe(true)
    expect(reg.all()).toEqual([a, b])
    expect(reg.names()).toEqual(['a', 'b'])
    expect(reg.size).toBe(2)
  })

  it('throws E_TOOL_NAME_TAKEN for a taken name and keeps the first tool', () => {
    const reg = new ToolRegistry()
    const first = make('x')
    reg.register(first)
    expect(() => reg.register(make('x'))).toThrow(
      expect.objectContaining({ code: 'E_TOOL_NAME_TAKEN' }),
    )
    expect(reg.get('x')).toBe(first)
  })

  it('unregisters by identity: another object with the same name is not removed', () => {
    const reg = new ToolRegistry()
    const held = make('x')
    reg.register(held)
    expect(reg.unregister(make('x'))).toBe(false)
    expect(reg.get('x')).toBe(held)
    expect(reg.unregister(held)).toBe(true)
    expect(reg.has('x')).toBe(false)
    expect(reg.unregister(held)).toBe(false)
  })

  it('a stale registration handle cannot remove a newer tool of the same name', () => {
    const reg = new ToolRegistry()
    const old = reg.register(make('x'))
    old.dispose()
    const newer = make('x')
    reg.register(newer)
    old.dispose()
    expect(reg.get('x')).toBe(newer)
  })

  it('treats constructor, __proto__ and toString as plain names', () => {
    const reg = new ToolRegistry()
    expect(reg.has('constructor')).toBe(false)
    expect(reg.get('__proto__')).toBeUndefined()
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      reg.register(make(name))
    expect(reg.get('__proto__')?.name).toBe('__proto__')
    expect(reg.get('constructor')?.name).toBe('constructor')
    expect(reg.size).toBe(4)
  })

  it('emits change events, survives a throwing listener, and unsubscribes', () => {
    const reg = new ToolRegistry()
    const seen: ToolRegistryChange[] = []
    reg.onDidChange(() => {
      throw new Error('listener bug')
    })
    const off = reg.onDidChange((c) => seen.push(c))
    const t = make('t')
    reg.register(t)
    reg.unregister(make('t'))
    reg.unregister(t)
    expect(seen.map((c) => [c.kind, c.tool])).toEqual([
      ['registered', t],
      ['unregistered', t],
    ])
    off()
    reg.register(make('u'))
    expect(seen).toHaveLength(2)
  })
})
