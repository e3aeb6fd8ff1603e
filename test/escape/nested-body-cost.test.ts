// Hole 16 of issue 35: bodies of brackets under every limit cost the server
// about 25 to 50 times their size once parsed (an array or object is 40-70
// bytes of heap for 2 bytes of text). The shape is now counted before
// JSON.parse builds anything: depth and containers per byte.
import { afterEach, describe, expect, it } from 'vitest'
import { type HttpLimit, type McpHttpServer, serveMcpHttp } from '../../src/adapters/mcp/index.js'
import { JSON_BODY_SHAPE, scanJsonShape } from '../../src/adapters/mcp/json-shape.js'
import { createSkillManager } from '../../src/manager/index.js'
import { InMemorySkillSource } from '../../src/sources/index.js'

const servers: McpHttpServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

const scan = (text: string) => {
  const bytes = Buffer.from(text)
  return scanJsonShape(bytes, bytes.length)
}
const deep = (n: number) => '['.repeat(n / 2) + ']'.repeat(n / 2)
const flat = (n: number, unit = '[]') =>
  `[${Array(Math.floor(n / (unit.length + 1)))
    .fill(unit)
    .join(',')}]`

describe('hole 16: the shape of a body is bounded before it is parsed', () => {
  it('the scan stops at the first bound passed: depth, then containers per byte', () => {
    const nested = scan(deep(4_000_000))
    expect(nested.refused).toBe('depth')
    // It stopped one level past the bound: 101 containers seen of 2,000,000.
    expect(nested.containers).toBe(JSON_BODY_SHAPE.maxDepth + 1)
    const wide = scan(flat(4_000_000))
    expect(wide.refused).toBe('containers')
    const allowed =
      JSON_BODY_SHAPE.freeContainers + Math.floor(Buffer.byteLength(flat(4_000_000)) / 8)
    expect(wide.containers).toBe(allowed + 1)
    // Nesting under the depth bound, repeated: refused by the count instead.
    const unit = '['.repeat(64) + ']'.repeat(64)
    expect(scan(flat(4_000_000, unit)).refused).toBe('containers')
    const objects = scan(flat(4_000_000, '{}'))
    expect(objects.refused).toBe('containers')
  })

  it('ways around: brackets in strings, escaped quotes and backslashes are counted as JSON does', () => {
    // Brackets inside a string are text, however many.
    const inString = scan(JSON.stringify({ a: '['.repeat(1_000_000) }))
    expect(inString).toEqual({ containers: 1, depth: 1, refused: undefined })
    // An escaped quote does not end the string early (the brackets after it stay text).
    expect(scan(JSON.stringify({ a: `\\"${'['.repeat(500)}` })).depth).toBe(1)
    // An escaped backslash before the closing quote does end it: what follows is counted.
    const after = scan(`["\\\\", ${deep(400)}]`)
    expect(after.refused).toBe('depth')
    // Closers with nothing open do not buy depth back for the openers after them.
    expect(scan(`]]]]${deep(300)}`).refused).toBe('depth')
  })

  it('the legitimate pass: long strings, 64 levels, thousands of small objects, numbers', () => {
    expect(scan(JSON.stringify({ text: 'x'.repeat(3_000_000) })).refused).toBeUndefined()
    expect(scan(deep(128)).refused).toBeUndefined()
    const rows = Array.from({ length: 50_000 }, (_, i) => ({ x: i, y: i * 2 }))
    expect(scan(JSON.stringify({ rows })).refused).toBeUndefined()
    const matrix = Array.from({ length: 2_000 }, () => [1, 2, 3, 4])
    expect(scan(JSON.stringify(matrix)).refused).toBeUndefined()
    expect(scan(JSON.stringify(Array(500_000).fill(0))).refused).toBeUndefined()
  })

  it('eight 4,000,000-byte bracket bodies are each refused with 413 before parsing; a real request still works', async () => {
    const limits: HttpLimit[] = []
    const http = await serveMcpHttp({
      createManager: () =>
        createSkillManager({
          sources: [new InMemorySkillSource({ skills: [] })],
          gate: async () => undefined,
        }),
      onLimit: (event) => limits.push(event.limit),
    })
    servers.push(http)
    const post = (body: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      })
    const bodies = [deep(4_000_000), flat(4_000_000), flat(4_000_000, '{}')]
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(bodies[i % bodies.length] as string)),
    )
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(413))
    expect(limits).toEqual(Array(8).fill('bodyShape'))
    // An initialize carrying a 3 MB string and 60 levels of nesting is served.
    const initialize = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {
            experimental: { big: { note: 'x'.repeat(3_000_000), deep: JSON.parse(deep(120)) } },
          },
          clientInfo: { name: 'legit', version: '1' },
        },
      }),
    )
    expect(initialize.status).toBe(200)
    expect(http.sessionCount()).toBe(1)
  })
})
