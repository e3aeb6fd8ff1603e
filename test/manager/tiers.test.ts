import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderError, SkillHostError } from '../../src/common/errors.js'
import { deny, type ToolGate } from '../../src/common/gate.js'
import { forgeSkillTools } from '../../src/lifecycle-tools.js'
import { createSkillManager } from '../../src/manager/create-skill-manager.js'
import type { SkillManagerConfig } from '../../src/manager/types.js'
import { timeoutProperty } from '../../src/skill-model/timeout-param.js'
import { createQuickJsGuest, type QuickJsGuestPool } from '../../src/tiers/isolated/index.js'
import { memorySource, reportSkill } from '../helpers/manager-fixtures.js'
import { makeRig, onLinux, type Rig } from '../helpers/sandbox.js'

const STATS = `async (args) => {
  const xs = args.values
  const sum = xs.reduce((a, b) => a + b, 0)
  console.log('n =', xs.length)
  return { sum, mean: sum / xs.length }
}`

const skill = (over: Parameters<typeof reportSkill>[0] = {}) =>
  reportSkill({
    name: 'toolbox',
    tools: [],
    isolatedTools: [
      {
        name: 'stats',
        description: 'Sum and mean of numbers.',
        params: {
          type: 'object',
          required: ['values'],
          properties: { values: { type: 'array', items: { type: 'number' } } },
        },
        source: STATS,
      },
    ],
    scripts: [
      {
        name: 'greet',
        path: 'scripts/greet.sh',
        description: 'Greets someone.',
        interpreter: 'sh',
        params: [{ name: 'who', type: 'string', required: true, positional: true }],
      },
      { name: 'fail', path: 'scripts/fail.sh', description: 'Exits 3.', interpreter: 'sh' },
      { name: 'slow', path: 'scripts/slow.sh', description: 'Sleeps.', interpreter: 'sh' },
      { name: 'hang', path: 'scripts/hang.sh', description: 'Never ends.', interpreter: 'sh' },
    ],
    files: {
      'scripts/greet.sh': 'echo "hello, $1"; echo "from $(pwd)" >&2\n',
      'scripts/fail.sh': 'echo broken; exit 3\n',
      'scripts/slow.sh': 'sleep 1; echo done\n',
      'scripts/hang.sh': 'echo started; sleep 30; echo never\n',
    },
    ...over,
  })

describe.skipIf(!onLinux)(
  'tiers 2 and 3 through the manager (real QuickJS, real bubblewrap)',
  () => {
    let rig: Rig
    let pool: QuickJsGuestPool
    beforeAll(async () => {
      rig = await makeRig()
      pool = createQuickJsGuest({ poolSize: 1 })
    })
    afterAll(async () => {
      await pool.dispose()
      await rig.cleanup()
    })
    const config = (
      gate: ToolGate = async () => {},
      over: Partial<SkillManagerConfig> = {},
    ): SkillManagerConfig => ({
      sources: [memorySource([skill()])],
      gate,
      isolation: {
        resolveGuest: pool.resolveGuest,
        // Generous: the calls must succeed however loaded the machine is.
        maxTimeoutSeconds: 20,
        defaultTimeoutSeconds: 20,
      },
      scripts: rig.config,
      ...over,
    })
    const roots = () => readdirSync(rig.workspace.skillsDir)

    it('loads isolated and script tools, runs them, and spools their results', async () => {
      await using manager = await createSkillManager(config())
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('toolbox', ctx)
      expect(loaded.tools).toEqual([
        'stats',
        'run_toolbox_greet',
        'run_toolbox_fail',
        'run_toolbox_slow',
        'run_toolbox_hang',
      ])
      expect(roots()).toHaveLength(1)
      const stats = String(await ctx.tools.get('stats')!.execute({ values: [1, 2, 3] }, ctx))
      expect(stats).toContain('"sum":6')
      expect(ctx.tools.get('stats')!.meta).toMatchObject({ tier: 'isolated', skill: 'toolbox' })
      const ack = String(await ctx.tools.get('run_toolbox_greet')!.execute({ who: 'ada' }, ctx))
      expect(ack).toMatch(/exit code 0/)
      const id = /output: (r_[0-9a-f]{16})/.exec(ack)![1]!
      const output = new TextDecoder().decode(await ctx.spool.get(id))
      expect(output).toContain('hello, ada')
      expect(output).not.toContain(rig.base)
      await manager.unload('toolbox', ctx)
      await expect.poll(roots).toEqual([])
    })

    it('a timeout is E_SKILL_SCRIPT_TIMEOUT, and the output until the kill stays readable by id', async () => {
      await using manager = await createSkillManager(config())
      const ctx = manager.createTurnContext()
      await manager.load('toolbox', ctx)
      const err = (await ctx.tools
        .get('run_toolbox_hang')!
        .execute({ timeout_seconds: 1 }, ctx)
        .catch((e: unknown) => e)) as SkillHostError
      expect(err.code).toBe('E_SKILL_SCRIPT_TIMEOUT')
      const partial = new TextDecoder().decode(await ctx.spool.get(String(err.data.retrievableId)))
      expect(partial).toContain('killed at the deadline')
      expect(partial).toContain('started')
      expect(partial).not.toContain('never')
    })

    it('a nonzero exit is E_SKILL_SCRIPT_FAILED carrying the exit code and a readable output id', async () => {
      await using manager = await createSkillManager(config())
      const ctx = manager.createTurnContext()
      await manager.load('toolbox', ctx)
      const err = (await ctx.tools
        .get('run_toolbox_fail')!
        .execute({}, ctx)
        .catch((e: unknown) => e)) as SkillHostError
      expect(err.code).toBe('E_SKILL_SCRIPT_FAILED')
      expect(err.data.exitCode).toBe(3)
      const out = new TextDecoder().decode(await ctx.spool.get(String(err.data.retrievableId)))
      expect(out).toContain('broken')
    })

    it('failOnNonzeroExit: false returns the acknowledgement for any completed run', async () => {
      await using manager = await createSkillManager(
        config(undefined, { scripts: { ...rig.config, failOnNonzeroExit: false } }),
      )
      const ctx = manager.createTurnContext()
      await manager.load('toolbox', ctx)
      expect(String(await ctx.tools.get('run_toolbox_fail')!.execute({}, ctx))).toMatch(
        /exit code 3/,
      )
    })

    it('script gate: a refusal is E_SKILL_SCRIPT_DENIED (403), a broken gate E_SKILL_SCRIPT_GATE_UNAVAILABLE (503)', async () => {
      const refusing: ToolGate = async (_c, req) => {
        if (req.tier === 'script') throw deny('no scripts in this workspace')
      }
      const broken: ToolGate = async (_c, req) => {
        if (req.tier === 'script') throw new Error('gate crashed')
      }
      for (const [gate, code, status] of [
        [refusing, 'E_SKILL_SCRIPT_DENIED', 403],
        [broken, 'E_SKILL_SCRIPT_GATE_UNAVAILABLE', 503],
      ] as const) {
        await using manager = await createSkillManager(config(gate))
        const ctx = manager.createTurnContext()
        await manager.load('toolbox', ctx)
        const err = (await ctx.tools
          .get('run_toolbox_greet')!
          .execute({ who: 'x' }, ctx)
          .catch((e: unknown) => e)) as SkillHostError
        expect(err.code).toBe(code)
        expect(err.status).toBe(status)
        expect(renderError(err)).not.toContain('gate crashed')
      }
    })

    it('a script with an interpreter off the allow-list, or an invalid declaration, is reported unavailable; the rest load', async () => {
      const mixed = skill({
        scripts: [
          { name: 'ok', path: 'scripts/greet.sh', description: 'ok', interpreter: 'sh' },
          { name: 'r', path: 'scripts/greet.sh', description: 'ruby', interpreter: 'ruby' },
          {
            name: 'bad-one',
            path: 'scripts/greet.sh',
            description: 'optional positional',
            interpreter: 'sh',
            params: [{ name: 'file', type: 'string', positional: true }],
          },
        ],
      })
      await using manager = await createSkillManager(
        config(undefined, { sources: [memorySource([mixed])] }),
      )
      const ctx = manager.createTurnContext()
      const loaded = await manager.load('toolbox', ctx)
      expect(loaded.tools).toEqual(['stats', 'run_toolbox_ok'])
      expect(ctx.tools.has('run_toolbox_r')).toBe(false)
      expect(loaded.unavailableTools.map((t) => [t.name, t.reason])).toEqual([
        ['run_toolbox_r', 'interpreter-not-allowed'],
        ['run_toolbox_bad_one', 'declaration-invalid'],
        // fail.sh, slow.sh and hang.sh are shipped but no longer declared (issue 37.6).
        ['run_toolbox_script', 'undeclared-off'],
      ])
      const [ruby, bad] = loaded.unavailableTools
      expect(ruby!.enable).toContain('--interpreter NAME=PATH')
      expect(ruby!.detail).toContain("declares interpreter 'ruby'")
      expect(bad!.detail).toMatch(/positional parameter must be required/)
      // The model sees the reason and the host's enable text, never the declaration's words.
      await manager.unload('toolbox', ctx)
      for (const t of forgeSkillTools(manager)) ctx.tools.register(t)
      const text = String(await ctx.tools.get('load_skill')!.execute({ skill: 'toolbox' }, ctx))
      expect(JSON.parse(text).toolsUnavailable).toHaveLength(3)
      expect(text).not.toContain('ruby')
      expect(text).not.toContain('positional parameter')
    })

    it('one timeout_seconds contract for every tier; an isolated tool declaring it is refused at load', async () => {
      await using manager = await createSkillManager(config())
      const ctx = manager.createTurnContext()
      await manager.load('toolbox', ctx)
      const iso = ctx.tools.get('stats')!.inputSchema as { properties: Record<string, unknown> }
      const run = ctx.tools.get('run_toolbox_greet')!.inputSchema as {
        properties: Record<string, unknown>
      }
      // The same rule, each under its own tier's maximum.
      expect(iso.properties.timeout_seconds).toEqual(timeoutProperty(20))
      expect(run.properties.timeout_seconds).toEqual(timeoutProperty(rig.config.maxTimeoutSeconds))
      expect(iso.properties.timeout_seconds).toMatchObject({ type: 'integer', minimum: 1 })
      const clash = skill({
        scripts: [],
        isolatedTools: [
          {
            name: 'stats',
            description: 'Declares the host-owned argument.',
            params: { type: 'object', properties: { timeout_seconds: { type: 'string' } } },
            source: STATS,
          },
        ],
      })
      await using other = await createSkillManager(
        config(undefined, { sources: [memorySource([clash])] }),
      )
      const err = await other.load('toolbox', other.createTurnContext()).catch((e: unknown) => e)
      expect(SkillHostError.is(err, 'E_SKILL_MANIFEST_INVALID')).toBe(true)
      expect(other.loaded()).toEqual([])
    })

    it('unload while a script runs: the call completes, the workspace is disposed after', async () => {
      await using manager = await createSkillManager(config())
      const ctx = manager.createTurnContext()
      await manager.load('toolbox', ctx)
      const running = ctx.tools.get('run_toolbox_slow')!.execute({}, ctx)
      await new Promise((r) => setTimeout(r, 200))
      await manager.unload('toolbox', ctx)
      expect(roots()).toHaveLength(1)
      expect(String(await running)).toMatch(/exit code 0/)
      await expect.poll(roots).toEqual([])
    })

    it('an abort of the turn is an abort, not a workspace failure', async () => {
      await using manager = await createSkillManager(config())
      const controller = new AbortController()
      const ctx = manager.createTurnContext({ abortSignal: controller.signal })
      await manager.load('toolbox', ctx)
      const running = ctx.tools
        .get('run_toolbox_slow')!
        .execute({}, ctx)
        .catch((e: unknown) => e)
      setTimeout(() => controller.abort(), 100)
      expect(SkillHostError.is(await running, 'E_ABORTED')).toBe(true)
    })

    it('reports declared tiers the host did not enable instead of failing the load', async () => {
      await using manager = await createSkillManager({
        sources: [memorySource([skill()])],
        gate: async () => {},
      })
      const loaded = await manager.load('toolbox', manager.createTurnContext())
      expect(loaded.tools).toEqual([])
      expect(loaded.unavailableTools.map((t) => t.name)).toEqual([
        'stats',
        'run_toolbox_greet',
        'run_toolbox_fail',
        'run_toolbox_slow',
        'run_toolbox_hang',
      ])
      expect(new Set(loaded.unavailableTools.map((t) => t.reason))).toEqual(
        new Set(['isolation-off', 'scripts-off']),
      )
    })

    it('randomized load/unload/refresh interleavings leave no orphan workspace', async () => {
      let seed = 7
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        return seed / 2 ** 31
      }
      const source = memorySource([skill()])
      for (let round = 0; round < 15; round++) {
        const manager = await createSkillManager({ ...config(), sources: [source] })
        const contexts = [manager.createTurnContext(), manager.createTurnContext()]
        const ops: Promise<unknown>[] = []
        for (let i = 0; i < 8; i++) {
          const ctx = contexts[Math.floor(random() * 2)]!
          const roll = random()
          let op: Promise<unknown>
          if (roll < 0.45) op = manager.load('toolbox', ctx)
          else if (roll < 0.85) op = manager.unload('toolbox', ctx)
          else {
            source.replace(skill({ body: `# toolbox ${round}.${i}\n` }))
            op = manager.refreshAndProject(ctx)
          }
          ops.push(
            op.catch((e: unknown) => {
              if (
                !SkillHostError.is(e, 'E_SKILL_ALREADY_LOADED') &&
                !SkillHostError.is(e, 'E_SKILL_NOT_LOADED')
              )
                throw e
            }),
          )
        }
        await Promise.all(ops)
        // At most the loaded version's root remains while loaded; none after dispose.
        await expect.poll(roots).toHaveLength(manager.loaded().length)
        await manager.dispose()
        expect(roots()).toEqual([])
      }
    }, 60_000)

    it('dispose tears down every workspace', async () => {
      const manager = await createSkillManager(config())
      await manager.load('toolbox', manager.createTurnContext())
      expect(roots()).toHaveLength(1)
      await manager.dispose()
      expect(roots()).toEqual([])
    })
  },
)
