import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { SpooledArtifact } from '../../src/common/artifacts/index.js'
import { renderError, SkillHostError } from '../../src/common/errors.js'
import { FileSpoolStore } from '../../src/common/file-spool-store.js'
import { deny, type ToolGate } from '../../src/common/gate.js'
import { Media } from '../../src/common/media.js'
import { Tool } from '../../src/common/tool.js'
import { createTurnContext } from '../../src/common/turn-context.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManagerConfig } from '../../src/manager/types.js'
import { codeOf } from '../helpers/error-code.js'
import { memorySource, reportSkill } from '../helpers/manager-fixtures.js'

class ReportArtifact extends SpooledArtifact {
  static override readonly kind: string = 'report'
}

function hostile(
  handler: () => unknown,
  over: Partial<ConstructorParameters<typeof Tool>[0]> = {},
): Tool {
  return new Tool({
    name: 'reports',
    description: 'Reports',
    inputSchema: z.object({}).strict(),
    trusted: true,
    handler: handler as never,
    ...over,
  })
}

async function loadWith(tool: Tool, config: Partial<SkillManagerConfig> = {}) {
  const manager = await createSkillManager({
    sources: [memorySource([reportSkill({ tools: [tool] })])],
    gate: async () => {},
    ...config,
  })
  const ctx = manager.createTurnContext()
  await manager.load('reports', ctx)
  const wrapper = ctx.tools.get('reports')!
  return { manager, ctx, wrapper, call: (args: unknown = {}) => wrapper.execute(args, ctx) }
}

describe('tier 1: every imported tool is rebuilt into a host-owned wrapper', () => {
  it('never mutates or exposes the original, and forces trusted: false with provenance', async () => {
    const original = hostile(() => 'ok')
    expect(Object.isFrozen(original)).toBe(true)
    const { manager, wrapper } = await loadWith(original)
    expect(wrapper).not.toBe(original)
    expect(wrapper.trusted).toBe(false)
    expect(original.trusted).toBe(true)
    expect(wrapper.meta).toMatchObject({ skill: 'reports', tier: 'module' })
    expect(typeof wrapper.meta.skillVersion).toBe('string')
    expect(Object.values(wrapper)).not.toContain(original)
    expect(Object.values(wrapper.meta)).not.toContain(original)
    await manager.dispose()
  })

  it('runs the gate before a handler that never gates itself; a refusal stops the handler', async () => {
    let ran = 0
    const order: string[] = []
    const gate: ToolGate = async (_ctx, req) => {
      order.push(`gate:${req.tool}`)
      if (req.tool === 'reports') throw deny('reports are off today')
    }
    const { manager, call } = await loadWith(
      hostile(() => {
        ran += 1
        return 'ran'
      }),
      { gate },
    )
    const err = await call().catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_TOOL_DENIED')).toBe(true)
    expect(renderError(err)).toContain('reports are off today')
    expect(ran).toBe(0)
    expect(order).toEqual(['gate:reports'])
    await manager.dispose()
  })

  it('reports a broken gate as unavailable, not as a refusal', async () => {
    const { manager, call } = await loadWith(
      hostile(() => 'ran'),
      {
        gate: async (_c, req) => {
          if (req.tool === 'reports') throw new TypeError('policy db down at /srv/secret/db')
        },
      },
    )
    const err = await call().catch((e: unknown) => e)
    expect(SkillHostError.is(err, 'E_TOOL_GATE_UNAVAILABLE')).toBe(true)
    expect((err as SkillHostError).status).toBe(503)
    expect(renderError(err)).not.toContain('/srv/secret')
    await manager.dispose()
  })

  it('contains a thrown Error as E_SKILL_TOOL_FAILED without showing its message; the host keeps the cause', async () => {
    const thrown = new Error('secret-error sk-live-123')
    const { manager, call } = await loadWith(
      hostile(() => {
        throw thrown
      }),
    )
    const err = (await call().catch((e: unknown) => e)) as SkillHostError
    expect(err.code).toBe('E_SKILL_TOOL_FAILED')
    expect(renderError(err)).not.toContain('secret-error')
    expect(err.cause).toBe(thrown)
    expect(err.data.recoverable).toBe(true)
    await manager.dispose()
  })

  it('does not turn a thrown string into a recoverable Error', async () => {
    const { manager, call } = await loadWith(
      hostile(() => {
        throw 'secret-string'
      }),
    )
    const err = (await call().catch((e: unknown) => e)) as SkillHostError
    expect(err.code).toBe('E_SKILL_TOOL_FAILED')
    expect(err.data.recoverable).toBe(false)
    expect(err.cause).toBe('secret-string')
    expect(renderError(err)).not.toContain('secret-string')
    await manager.dispose()
  })

  it.each([
    ['undefined', () => undefined],
    ['an object', () => ({ ok: true })],
    ['a function', () => () => 'x'],
    ['a number', () => 42],
    ['an empty array', () => []],
    ['a prebuilt artifact', () => new SpooledArtifact({} as never, {} as never)],
    ['a promise of an object', async () => ({ nested: 1 })],
  ])('rejects %s as E_SKILL_TOOL_BAD_RESPONSE', async (_label, handler) => {
    const { manager, call } = await loadWith(hostile(handler))
    expect(await codeOf(call())).toBe('E_SKILL_TOOL_BAD_RESPONSE')
    await manager.dispose()
  })

  it('accepts string, bytes, Media and Media[] and spools each untrusted with provenance', async () => {
    const media = new Media({ mimeType: 'image/png', data: new Uint8Array([1, 2, 3]) })
    const results: unknown[] = ['plain text', new Uint8Array([0, 255]), media, [media, media]]
    let i = 0
    const { manager, ctx, call } = await loadWith(hostile(() => results[i++]))
    const text = String(await call())
    expect(text).toContain('plain text')
    const id = /result (r_[0-9a-f]{16})/.exec(text)![1]!
    const record = await ctx.spool.stat(id)
    expect(record).toMatchObject({
      trusted: false,
      provenance: { skill: 'reports', tool: 'reports' },
    })
    expect(String(await call())).toMatch(/Binary result spooled as r_[0-9a-f]{16} \(2 bytes/)
    expect(await call()).toStrictEqual(media)
    expect(await call()).toEqual([media, media])
    await manager.dispose()
  })

  it('spools through a store without putSync (files) as well as through memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skillhost-spool-'))
    try {
      const { manager, wrapper } = await loadWith(hostile(() => 'to disk'))
      const ctx = createTurnContext({ spool: new FileSpoolStore({ directory: dir }) })
      const out = String(await wrapper.execute({}, ctx))
      const id = /result (r_[0-9a-f]{16})/.exec(out)![1]!
      expect(new TextDecoder().decode(await ctx.spool.get(id))).toBe('to disk')
      expect((await ctx.spool.stat(id))?.provenance).toMatchObject({
        skill: 'reports',
        tool: 'reports',
      })
      await manager.dispose()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('spools by the deployer binding, and a kind that vanished is E_SKILL_ARTIFACT_UNAVAILABLE', async () => {
    let available = true
    const { manager, ctx, call } = await loadWith(
      hostile(() => 'quarterly numbers'),
      {
        artifactKinds: { report: () => (available ? ReportArtifact : undefined) },
        artifactBindings: { reports: { reports: 'report' } },
      },
    )
    const id = /result (r_[0-9a-f]{16})/.exec(String(await call()))![1]!
    expect((await ctx.spool.stat(id))?.kind).toBe('report')
    available = false
    expect(await codeOf(call())).toBe('E_SKILL_ARTIFACT_UNAVAILABLE')
    await manager.dispose()
  })

  it('answers every kind of gate as before the one-hop await (issue 39 item 4)', async () => {
    // The envelope awaits the gate's own promise; each way a gate can answer keeps its verdict.
    const thenable = (fail?: unknown): ToolGate =>
      (() => ({
        // biome-ignore lint/suspicious/noThenProperty: a foreign thenable, as some gates return
        then: (ok: () => void, no: (e: unknown) => void) => (fail ? no(fail) : ok()),
      })) as unknown as ToolGate
    const cases: [ToolGate, string | undefined][] = [
      [() => {}, undefined],
      [async () => {}, undefined],
      [thenable(), undefined],
      [
        () => {
          throw deny('sync no')
        },
        'E_TOOL_DENIED',
      ],
      [async () => Promise.reject(deny('async no')), 'E_TOOL_DENIED'],
      [thenable(deny('thenable no')), 'E_TOOL_DENIED'],
      [
        () => {
          throw new Error('down')
        },
        'E_TOOL_GATE_UNAVAILABLE',
      ],
      [thenable(new Error('down')), 'E_TOOL_GATE_UNAVAILABLE'],
    ]
    for (const [gate, code] of cases) {
      let ran = 0
      const { manager, call } = await loadWith(
        hostile(() => {
          ran += 1
          return 'ran'
        }),
        { gate },
      )
      const outcome = await call().then(
        (r) => String(r).slice(0, 3),
        (e: unknown) => (e as SkillHostError).code,
      )
      expect(outcome).toBe(code ?? 'ran')
      expect(ran).toBe(code === undefined ? 1 : 0)
      await manager.dispose()
    }
  })

  it('previews text up to 8 KiB by UTF-8 bytes, counted only when the length could pass it', async () => {
    const texts = [
      'a'.repeat(3000), // 9,000 > 8,192 by length × 3, 3,000 bytes: whole
      '€'.repeat(2730), // 8,190 bytes: whole
      '€'.repeat(2731), // 8,193 bytes: truncated
      'a'.repeat(8193), // truncated
    ]
    let i = 0
    const { manager, call } = await loadWith(hostile(() => texts[i++]))
    const seen = []
    for (let n = 0; n < texts.length; n++) seen.push(String(await call()))
    expect(seen.map((s) => s.includes('preview truncated'))).toEqual([false, false, true, true])
    expect(seen[0]).toContain(texts[0])
    expect(seen[1]).toContain(texts[1])
    expect(seen[2]!.startsWith('€'.repeat(2730))).toBe(true)
    await manager.dispose()
  })

  it('validates arguments before the gate and handler', async () => {
    let ran = 0
    const { manager, call } = await loadWith(
      hostile(() => {
        ran += 1
        return 'x'
      }),
    )
    expect(await codeOf(call({ unexpected: 1 }))).toBe('E_TOOL_INVALID_ARGS')
    expect(ran).toBe(0)
    await manager.dispose()
  })

  it('hands the handler a sealed context: no host registry, no projections, no writable spool', async () => {
    let seen: { tools: number; retrievables: number; put: string } | undefined
    const { manager, ctx, call } = await loadWith(
      hostile(async (...a: unknown[]) => {
        const c = a[1] as typeof ctx
        const put = await c.spool.put(new Uint8Array([1])).then(
          () => 'written',
          () => 'refused',
        )
        seen = { tools: c.tools.size, retrievables: c.retrievables.size, put }
        return 'ok'
      }),
    )
    await call()
    expect(ctx.tools.size).toBeGreaterThan(0)
    expect(seen).toEqual({ tools: 0, retrievables: 0, put: 'refused' })
    await manager.dispose()
  })

  it('leaves a never-settling handler pending (documented), while unload and dispose still complete', async () => {
    const { manager, ctx, call } = await loadWith(
      hostile(() => new Promise(() => {})),
      { disposeTimeoutMs: 200 },
    )
    let settled = false
    void call().finally(() => {
      settled = true
    })
    await new Promise((r) => setImmediate(r))
    await manager.unload('reports', ctx)
    expect(manager.loaded()).toEqual([])
    const disposing = manager.dispose()
    await expect(disposing).resolves.toBeUndefined()
    expect(settled).toBe(false)
  }, 15_000)
})
