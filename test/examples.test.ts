import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillManager } from '../src/manager/create-skill-manager.js'
import type { SkillManager } from '../src/manager/types.js'
import { FileSystemSkillSource } from '../src/sources/file-system-skill-source.js'
import { createQuickJsGuest, type QuickJsGuestPool } from '../src/tiers/isolated/index.js'
import { createScriptSandbox, type ScriptSandbox } from '../src/tiers/scripts/index.js'

const examples = fileURLToPath(new URL('../examples/skills', import.meta.url))

/** The shipped examples, loaded the way a deployer would: every tier on, real parts. */
describe.skipIf(process.platform !== 'linux')('examples/skills through the manager', () => {
  let manager: SkillManager
  let pool: QuickJsGuestPool
  let sandbox: ScriptSandbox
  beforeAll(async () => {
    pool = createQuickJsGuest({ poolSize: 1 })
    sandbox = await createScriptSandbox()
    manager = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [examples], importModules: true })],
      gate: async () => {},
      isolation: {
        resolveGuest: pool.resolveGuest,
        maxTimeoutSeconds: 5,
        defaultTimeoutSeconds: 2,
      },
      scripts: sandbox.config,
    })
  })
  afterAll(async () => {
    await manager.dispose()
    await pool.dispose()
    await sandbox.dispose()
  })

  it('discovers all four examples without problems', () => {
    const catalog = manager.catalog()
    expect(catalog.entries.map((e) => e.id).sort()).toEqual([
      'commit-messages',
      'json-tools',
      'unit-convert',
      'word-count',
    ])
    expect(catalog.sourceErrors).toEqual([])
    expect(catalog.skipped.filter((p) => p.severity === 'error')).toEqual([])
  })

  it('commit-messages is prose only: a body with sections and no tools', async () => {
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('commit-messages', ctx)
    expect(loaded.tools).toEqual([])
    expect(loaded.handle?.text).toMatch(/Outline/)
    await manager.unload('commit-messages', ctx)
  })

  it('unit-convert: a module tool rebuilt into an untrusted wrapper', async () => {
    const ctx = manager.createTurnContext()
    const loaded = await manager.load('unit-convert', ctx)
    expect(loaded.tools.length).toBeGreaterThan(0)
    const tool = ctx.tools.get(loaded.tools[0]!)!
    expect(tool.trusted).toBe(false)
    expect(tool.meta.tier).toBe('module')
    await manager.unload('unit-convert', ctx)
  })

  it('json-tools: isolated tools evaluated in QuickJS', async () => {
    const ctx = manager.createTurnContext()
    await manager.load('json-tools', ctx)
    const diff = String(
      await ctx.tools
        .get('json_diff')!
        .execute({ before: { a: 1, b: [1] }, after: { a: 2, c: true } }, ctx),
    )
    expect(diff).toContain('/a')
    expect(diff).toContain('/c')
    const stats = String(
      await ctx.tools.get('json_stats')!.execute({ value: { x: [1, 2, { y: null }] } }, ctx),
    )
    expect(stats).toMatch(/depth/i)
    await manager.unload('json-tools', ctx)
  })

  it('word-count: a script run in the sandbox with typed params', async () => {
    const ctx = manager.createTurnContext()
    await manager.load('word-count', ctx)
    const loaded = manager.projected(ctx)
    expect(loaded).toEqual(['word-count'])
    const tool = ctx.tools.get('run_word_count_count')!
    const ack = String(await tool.execute({ file: 'samples/sample.txt', top: 2 }, ctx))
    expect(ack).toMatch(/exit code 0/)
    const id = /output: (r_[0-9a-f]{16})/.exec(ack)![1]!
    expect(new TextDecoder().decode(await ctx.spool.get(id))).toMatch(/words: \d+/)
    await manager.unload('word-count', ctx)
  })
})
