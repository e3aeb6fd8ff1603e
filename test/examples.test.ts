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
        // Generous: the calls must succeed however loaded the machine is.
        maxTimeoutSeconds: 20,
        defaultTimeoutSeconds: 20,
      },
      scripts: sandbox.config,
    })
  })
  afterAll(async () => {
    await manager.dispose()
    await pool.dispose()
    await sandbox.dispose()
  })

  it('discovers all five examples without problems', () => {
    const catalog = manager.catalog()
    expect(catalog.entries.map((e) => e.id).sort()).toEqual([
      'commit-messages',
      'form-fill',
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

  it('form-fill: no sidecar, so no tools by default; with undeclared scripts its three steps chain in the workspace', async () => {
    const ctx = manager.createTurnContext()
    expect((await manager.load('form-fill', ctx)).tools).toEqual([])
    await manager.unload('form-fill', ctx)

    await using allowing = await createSkillManager({
      sources: [new FileSystemSkillSource({ roots: [examples] })],
      gate: async () => {},
      scripts: { ...sandbox.config, undeclared: 'allow' },
    })
    const c = allowing.createTurnContext()
    expect((await allowing.load('form-fill', c)).tools).toEqual(['run_form_fill_script'])
    await allowing.workspace!.put('form.txt', 'Name: [[name]]\nCity: [[city]]\n')
    const run = async (script: string, ...args: string[]) =>
      String(await c.tools.get('run_form_fill_script')!.execute({ script, args }, c))
    expect(await run('scripts/extract_fields.py', 'form.txt', 'fields.json')).toContain(
      '2 fields written to fields.json',
    )
    await allowing.workspace!.put('values.json', '{"name": "Ada"}')
    expect(await run('scripts/fill_fields.py', 'form.txt', 'values.json', 'filled.txt')).toMatch(
      /created filled\.txt \(\d+ bytes\), copy: r_/,
    )
    expect(await run('scripts/verify_fields.py', 'form.txt', 'filled.txt')).toContain(
      'name: Ada\ncity: (empty)\n1 of 2 fields filled',
    )
    expect(new TextDecoder().decode(await allowing.workspace!.get('filled.txt'))).toBe(
      'Name: Ada\nCity: [[city]]\n',
    )
    // A value that is not one line of text is refused, naming the field.
    await allowing.workspace!.put('values.json', '{"name": "Ada\\nCity: Paris"}')
    const refused = await c.tools
      .get('run_form_fill_script')!
      .execute({ script: 'scripts/fill_fields.py', args: ['form.txt', 'values.json', 'x.txt'] }, c)
      .then(
        () => '',
        (e: Error) => e.message,
      )
    expect(refused).toContain('values must be one line of text without [[ or ]]; not so for: name')
  })
})
