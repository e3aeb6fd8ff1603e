import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseServeOptions } from '../../src/cli/serve/serve-options.js'
import { UsageError } from '../../src/cli/shared/parse-args.js'
import { writeSeventeenSkills } from '../helpers/catalog-fixtures.js'
import { ROOT } from '../helpers/spawn-serve.js'

let skills = ''
let state = ''
beforeAll(async () => {
  skills = await writeSeventeenSkills()
  state = await mkdtemp(join(tmpdir(), 'skillhost-serve-catalog-'))
})
afterAll(async () => {
  await rm(skills, { recursive: true, force: true })
  await rm(state, { recursive: true, force: true })
})

describe('serve --catalog-window (issue 38)', () => {
  it('parses the window and share; refuses what the library refuses, naming the flag', () => {
    expect(parseServeOptions(['--catalog-window', '200000', skills]).catalog).toEqual({
      window: 200_000,
    })
    expect(
      parseServeOptions(['--catalog-window=200000', '--catalog-share=0.02', skills]).catalog,
    ).toEqual({ window: 200_000, share: 0.02 })
    expect(parseServeOptions([skills]).catalog).toBeUndefined()
    for (const [args, message] of [
      [['--catalog-share', '0.02'], '--catalog-share needs --catalog-window'],
      [['--catalog-window', '0'], '--catalog-window must be a positive whole number'],
      [['--catalog-window', '100', '--catalog-share', '1.5'], '--catalog-share must be a number'],
    ] as const) {
      expect(() => parseServeOptions([...args, skills])).toThrow(UsageError)
      expect(() => parseServeOptions([...args, skills])).toThrow(message)
    }
  })

  it("the real server: list_skills' description ends in the block, within 8,000 characters, unchanged by a load", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        'dist/cli/main.js',
        'serve',
        '--state-dir',
        state,
        '--no-default-roots',
        '--no-scripts',
        '--catalog-window',
        '200000',
        skills,
      ],
      cwd: ROOT,
      stderr: 'pipe',
    })
    const client = new Client({ name: 'serve-catalog-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const before = (await client.listTools()).tools
      const list = before.find((t) => t.name === 'list_skills')!
      const block = /<available_skills>[\s\S]*<\/available_skills>$/.exec(
        list.description ?? '',
      )?.[0]
      expect(block).toBeDefined()
      expect(block!.length).toBeLessThanOrEqual(8_000)
      expect(block!.match(/<name>/g)).toHaveLength(17)
      expect(block).not.toContain('<location>')
      await client.callTool({ name: 'load_skill', arguments: { skill: 'word-count' } })
      const after = (await client.listTools()).tools
      expect(after.length).toBeGreaterThan(before.length)
      expect(after.find((t) => t.name === 'list_skills')?.description).toBe(list.description)
      // The skill's tools come after the lifecycle tools: the listed prefix holds.
      expect(after.slice(0, before.length).map((t) => t.name)).toEqual(before.map((t) => t.name))
    } finally {
      await client.close()
    }
  }, 60_000)
})
