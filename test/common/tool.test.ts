import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, TOOL_NAME_PATTERN, Tool } from '../../src/common/index.js'
import { rejectsWith } from '../helpers/error-code.js'
import { turn } from '../helpers/turn.js'

describe('Tool', () => {
  const zodTool = new Tool({
    name: 'add',
    description: 'adds',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => String(a + b),
  })

  it('runs a zod 4 schema tool with valid args', async () => {
    expect(await zodTool.execute({ a: 2, b: 3 }, turn())).toBe('5')
  })

  it('rejects invalid args against a zod schema with E_TOOL_INVALID_ARGS and never calls the handler', async () => {
    let called = false
    const tool = new Tool({
      name: 't',
      description: '',
      inputSchema: z.object({ a: z.number() }),
      handler: () => {
        called = true
        return 'x'
      },
    })
    const err = await rejectsWith(tool.execute({ a: 'nope' }, turn()), 'E_TOOL_INVALID_ARGS')
    expect(err.message).toContain('a')
    expect(called).toBe(false)
  })

  it('exposes a JSON Schema derived from zod', () => {
    expect(zodTool.jsonSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' } },
    })
  })

  const jsonTool = new Tool<{ q: string; n?: number }>({
    name: 'search',
    description: 'search',
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer', default: 3 } },
      required: ['q'],
      additionalProperties: false,
    },
    handler: ({ q, n }) => `${q}:${n}`,
  })

  it('runs a plain JSON Schema tool, applying defaults without mutating the caller args', async () => {
    const args = { q: 'hi' }
    expect(await jsonTool.execute(args, turn())).toBe('hi:3')
    expect(args).toEqual({ q: 'hi' })
  })

  it('rejects invalid args against a JSON Schema with E_TOOL_INVALID_ARGS', async () => {
    await rejectsWith(jsonTool.execute({ q: 1 }, turn()), 'E_TOOL_INVALID_ARGS')
    await rejectsWith(jsonTool.execute({ q: 'x', extra: true }, turn()), 'E_TOOL_INVALID_ARGS')
    await rejectsWith(jsonTool.execute(undefined, turn()), 'E_TOOL_INVALID_ARGS')
  })

  it('answers with a promise even when validation or the handler throws synchronously', async () => {
    const throwing = new Tool({
      name: 'boom',
      description: '',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('handler threw')
      },
    })
    const invalid = jsonTool.execute({ q: 1 }, turn())
    expect(invalid).toBeInstanceOf(Promise)
    await rejectsWith(invalid, 'E_TOOL_INVALID_ARGS')
    const thrown = throwing.execute({}, turn())
    expect(thrown).toBeInstanceOf(Promise)
    await expect(thrown).rejects.toThrow('handler threw')
    const asyncTool = new Tool({
      name: 'later',
      description: '',
      inputSchema: { type: 'object' },
      handler: async () => 'later',
    })
    expect(await asyncTool.execute({}, turn())).toBe('later')
  })

  it('exposes the JSON Schema it was given', () => {
    expect(jsonTool.jsonSchema).toBe(jsonTool.inputSchema)
    expect(jsonTool.jsonSchema).toMatchObject({ required: ['q'] })
  })

  it('fails at construction on a broken JSON Schema', () => {
    expect(
      () =>
        new Tool({
          name: 'b',
          description: '',
          inputSchema: { type: 'not-a-type' },
          handler: () => '',
        }),
    ).toThrow(expect.objectContaining({ code: 'E_INVALID_SKILLS_CONFIG' }))
  })

  it('is frozen and untrusted by default', () => {
    expect(Object.isFrozen(zodTool)).toBe(true)
    expect(zodTool.trusted).toBe(false)
    expect(() => {
      ;(zodTool as { trusted: boolean }).trusted = true
    }).toThrow(TypeError)
    expect(zodTool.trusted).toBe(false)
    const explicit = new Tool({
      name: 'x',
      description: '',
      inputSchema: {},
      handler: () => '',
      trusted: true,
    })
    expect(explicit.trusted).toBe(true)
    const truthy = new Tool({
      name: 'y',
      description: '',
      inputSchema: {},
      handler: () => '',
      trusted: 'yes' as never,
    })
    expect(truthy.trusted).toBe(false)
  })

  it('freezes meta and recognizes tools across copies', () => {
    const tool = defineTool({
      name: 'm',
      description: '',
      inputSchema: {},
      handler: () => '',
      meta: { a: 1 },
    })
    expect(Object.isFrozen(tool.meta)).toBe(true)
    expect(Tool.isInstance(tool)).toBe(true)
    expect(Tool.isInstance({ name: 'm' })).toBe(false)
    expect(Tool.isInstance({ [Symbol.for('skillhost.tool')]: true })).toBe(true)
    expect(Tool.handlerOf(tool)).toBeTypeOf('function')
  })

  it('rejects a tool without a name or handler', () => {
    expect(
      () => new Tool({ name: '', description: '', inputSchema: {}, handler: () => '' }),
    ).toThrow(TypeError)
    expect(
      () => new Tool({ name: 'n', description: '', inputSchema: {}, handler: undefined as never }),
    ).toThrow(TypeError)
  })

  it('TOOL_NAME_PATTERN accepts provider-safe names only', () => {
    expect(TOOL_NAME_PATTERN.test('run_pdf-extract_2')).toBe(true)
    expect(TOOL_NAME_PATTERN.test('a'.repeat(64))).toBe(true)
    expect(TOOL_NAME_PATTERN.test('a'.repeat(65))).toBe(false)
    expect(TOOL_NAME_PATTERN.test('has space')).toBe(false)
    expect(TOOL_NAME_PATTERN.test('dot.name')).toBe(false)
  })
})

describe('deeply nested arguments', () => {
  // Built iteratively: 200,000 levels, the shape a model can send as JSON.
  const deep = (levels: number): unknown => {
    let v: unknown = 1
    for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { x: v }
    return v
  }

  it('are refused as E_TOOL_INVALID_ARGS (not a stack overflow) by JSON Schema and zod tools', async () => {
    let calls = 0
    const handler = () => {
      calls++
      return 'ok'
    }
    const json = new Tool({
      name: 'json_tool',
      description: '',
      inputSchema: { type: 'object', properties: { v: {} } },
      handler,
    })
    const zodTool = new Tool({
      name: 'zod_tool',
      description: '',
      inputSchema: z.object({ v: z.unknown() }),
      handler,
    })
    for (const tool of [json, zodTool]) {
      const err = await rejectsWith(
        tool.execute({ v: deep(200_000) }, turn()),
        'E_TOOL_INVALID_ARGS',
      )
      expect(err.message).toMatch(/nest deeper than 64 levels/)
      // Shared and cyclic references are walked once, and ordinary nesting passes.
      const shared = { a: 1 }
      expect(await tool.execute({ v: [shared, shared, deep(40)] }, turn())).toBe('ok')
    }
    expect(calls).toBe(2)
  })
})
