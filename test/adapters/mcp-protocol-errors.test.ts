import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { GetSkillResultSchema } from '../../src/adapters/mcp/index.js'
import { TOOLS_LIST_PAGE } from '../../src/adapters/mcp/tools-list-page.js'
import { Tool } from '../../src/common/index.js'
import { createSkillManager } from '../../src/manager/index.js'
import { FileSystemSkillSource, InMemorySkillSource } from '../../src/sources/index.js'
import { cleanupAfterEach, connectInMemory, filesFolder } from '../helpers/mcp-in-memory.js'

const cleanups = cleanupAfterEach()

async function connected(): Promise<{ client: Client; calls: { tool: string; ok: boolean }[] }> {
  const source = new InMemorySkillSource({
    skills: [{ name: 'notes', description: 'Takes notes.', body: '# Notes\n' }],
  })
  const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
  const calls: { tool: string; ok: boolean }[] = []
  const { client } = await connectInMemory(
    cleanups,
    { manager, disposeManager: true, onToolCall: (e) => calls.push({ tool: e.tool, ok: e.ok }) },
    'errors-test',
  )
  return { client, calls }
}

/** The error a request failed with; fails the test when it succeeded. */
async function failure(request: Promise<unknown>): Promise<McpError> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(McpError)
  return err as McpError
}

/** How often the SDK's "MCP error <code>: " prefix occurs in a message. */
const prefixes = (message: string): number => message.match(/MCP error -?\d+: /g)?.length ?? 0

describe('protocol errors are JSON-RPC errors with one prefix', () => {
  it('an unknown tool is -32602, reported to onToolCall, its name quoted', async () => {
    const { client, calls } = await connected()
    const err = await failure(client.callTool({ name: 'no_such\u001b[2J', arguments: {} }))
    expect(err.code).toBe(-32602)
    expect(prefixes(err.message)).toBe(1)
    expect(err.message).toMatch(
      /^MCP error -32602: E_TOOL_NOT_FOUND: Unknown tool "no_such\\u001b\[2J"/,
    )
    expect(calls).toEqual([{ tool: 'no_such\u001b[2J', ok: false }])
    // A tool that exists still answers with a result, its failures as isError.
    const bad = await client.callTool({ name: 'load_skill', arguments: { skill: 'nope' } })
    expect(bad.isError).toBe(true)
  })

  it('an invalid log level is -32602; a valid one is accepted', async () => {
    const { client } = await connected()
    for (const level of ['verbose', 'INFO', 7, null]) {
      const err = await failure(
        client.request(
          { method: 'logging/setLevel', params: { level: level as never } },
          EmptyResultSchema,
        ),
      )
      expect(err.code, String(level)).toBe(-32602)
      expect(prefixes(err.message)).toBe(1)
    }
    const missing = await failure(
      client.request({ method: 'logging/setLevel', params: {} as never }, EmptyResultSchema),
    )
    expect(missing.code).toBe(-32602)
    await expect(client.setLoggingLevel('debug')).resolves.toEqual({})
  })

  it('resources/read and skills/get refusals carry one prefix', async () => {
    const { client } = await connected()
    const read = await failure(client.readResource({ uri: 'file:///etc/passwd' }))
    expect(read.code).toBe(-32602)
    expect(prefixes(read.message)).toBe(1)
    const get = await failure(
      client.request(
        { method: 'skills/get', params: { uri: 'skill://nothing/SKILL.md' } },
        GetSkillResultSchema,
      ),
    )
    expect(get.code).toBe(-32602)
    expect(prefixes(get.message)).toBe(1)
    // The SDK's own refusal (a tools/call without a name) is cleaned alike.
    const sdk = await failure(
      client.request(
        { method: 'tools/call', params: { arguments: {} } as never },
        EmptyResultSchema,
      ),
    )
    expect(prefixes(sdk.message)).toBe(1)
  })

  it('tools/list pages with its cursor, each page bounded, and refuses a foreign cursor', async () => {
    const source = new InMemorySkillSource({ skills: [] })
    const manager = await createSkillManager({ sources: [source], gate: async () => undefined })
    const hostTools = Array.from(
      { length: TOOLS_LIST_PAGE + 50 },
      (_, i) =>
        new Tool({
          name: `host_${String(i).padStart(3, '0')}`,
          description: 'A host tool.',
          inputSchema: { type: 'object', properties: {} },
          handler: () => 'ok',
        }),
    )
    const { client } = await connectInMemory(
      cleanups,
      { manager, disposeManager: true, hostTools },
      'paging-test',
    )
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      expect(page.tools.length).toBeLessThanOrEqual(TOOLS_LIST_PAGE)
      names.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
      pages += 1
    } while (cursor !== undefined && pages < 10)
    expect(pages).toBe(2)
    expect(new Set(names).size).toBe(names.length)
    for (const tool of hostTools) expect(names).toContain(tool.name)
    expect(names).toContain('load_skill')
    for (const bad of ['o:1', 't:-1', 't:x', 'nonsense']) {
      const err = await failure(client.listTools({ cursor: bad }))
      expect(err.code, bad).toBe(-32602)
    }
  })

  it('skills/get answers a skill only under the URI spelling skills/list gives', async () => {
    const root = filesFolder(cleanups, 'skills-uri-', {
      'fine/SKILL.md': '---\nname: fine\ndescription: Fine.\n---\n# Fine\n',
    })
    const manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: root })],
      gate: async () => undefined,
    })
    const { client } = await connectInMemory(
      cleanups,
      { manager, disposeManager: true },
      'uri-test',
    )
    const get = (uri: string) =>
      client.request({ method: 'skills/get', params: { uri } }, GetSkillResultSchema)
    const { skill } = await get('skill://fine/SKILL.md')
    expect(skill.uri).toBe('skill://fine/SKILL.md')
    for (const other of [
      'skill://fin%65/SKILL.md',
      'skill://%66ine/SKILL.md',
      'skill://fine/SKILL%2Emd',
    ]) {
      const err = await failure(get(other))
      expect(err.code, other).toBe(-32602)
      expect(err.message).toContain('"skill://fine/SKILL.md"')
    }
  })
})
